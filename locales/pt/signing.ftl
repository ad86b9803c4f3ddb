# As páginas que um destinatário vê.

## A moldura de cada página.
page-skip = Ir para o conteúdo principal

## A página de assinatura.
sign-attachments = Anexos
sign-attachment-new-tab = Cada ligação abre num novo separador; ao lado está o site para onde leva.
sign-loading = A carregar o documento…
sign-needs-script = Para assinar é preciso JavaScript; ative-o para esta página.

## Um link em que já não há nada a fazer.
sign-cancelled = Este documento foi cancelado pelo remetente. Já não há nada a fazer.
sign-completed = Todos terminaram: este documento está concluído. A cópia assinada foi enviada por e-mail.
sign-completed-download = Todos terminaram: este documento está concluído.
sign-rejected = Este documento foi recusado e já não pode ser assinado.
sign-expired = O seu prazo para agir neste documento terminou em { $date }. Peça ao remetente que lho envie de novo; o link funcionará então durante um novo prazo.

## Um documento que pede uma conta Docket.
gate-sent-by = Enviado por { $name } ({ $email })
gate-sign-in = Este documento pede que entre na sua conta Docket para { $email } antes de o poder ver.
gate-also-asks = Quando terminar, vai pedir também { $asked }.
gate-asked-totp = um código de seis dígitos, da sua aplicação de autenticação ou enviado por e-mail
gate-asked-passkey = a sua chave de acesso
gate-asked-password = novamente a palavra-passe da sua conta Docket
gate-wrong-account = Tem sessão iniciada como { $other }. Termine a sessão e depois entre como { $email }.
gate-sign-out = Terminar sessão
gate-sign-in-button = Entrar
gate-create-account = Criar uma conta
gate-create-hint = Ainda não tem conta Docket? "Criar uma conta" envia para { $email } um link para a criar.

## O link direto de um modelo.
direct-asks = { $name } ({ $email }) pede-lhe que preencha e assine este documento.
direct-asks-pages = { $name } ({ $email }) pede-lhe que preencha e assine este documento (páginas: { $pages }).
direct-step-you = Indique aqui o seu nome e o seu endereço de e-mail.
direct-step-sign = Preencha e assine o documento na página seguinte.
direct-step-done = Recebe o PDF assinado por e-mail.
direct-step-then = Depois segue para { $people }; recebe o PDF assinado por e-mail quando todos tiverem assinado.
direct-and = { $first } e { $last }
direct-name = O seu nome completo
direct-email = O seu endereço de e-mail
direct-email-hint = O PDF assinado é enviado para aqui.
direct-continue = Continuar para o documento
direct-recorded = O seu nome, o seu endereço e o local de onde assina ficam registados no registo de auditoria do documento e são partilhados com { $name }.
direct-expired = O formulário expirou. Carregue novamente no botão.
direct-bad-name = Indique o seu nome completo (no máximo 200 caracteres).
direct-bad-email = Indique um endereço de e-mail válido.

## A signing page in another site's frame (embedded).
embed-open-window = Abrir numa nova janela
