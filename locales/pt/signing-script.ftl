# O que os scripts da página de assinatura dizem ao destinatário. As variáveis são simples
# marcadores preenchidos pelo script.

## A linha de estado.
script-status-cc = Recebe uma cópia deste documento quando todos tiverem assinado.
script-status-finished = Terminou. Obrigado.
script-status-not-your-turn = Ainda não é a sua vez: recebe um e-mail quando for.
script-status-sign-out-first = Termine a sessão e depois entre como { $email } para preencher este documento.
script-status-sign-in-first = Já pode ler o documento. Para o preencher, entre primeiro como { $email }.
script-status-assistant = Preencha o que puder para os destinatários seguintes e depois carregue em "{ $action }".
script-status-fields-left = Campos obrigatórios ainda vazios: { $count }. "Campo seguinte" leva-o a cada um; depois carregue em "{ $action }".
script-status-fields-left-setup = Campos obrigatórios ainda vazios: { $count }. "Campo seguinte" leva-o a cada um; depois configure { $what } para assinar.
script-status-setup = Tudo o que é obrigatório está preenchido. Para assinar, configure primeiro { $what } ("{ $label }"), ou recuse o documento.
script-status-read = Leia o documento e depois carregue em "{ $action }".
script-status-ready = Tudo o que é obrigatório está preenchido. Verifique o documento e depois carregue em "{ $action }".

## Os botões para terminar, conforme o papel.
script-action-signer = Terminar e assinar
script-action-approver = Aprovar
script-action-viewer = Marcar como visto
script-action-assistant = Terminar a preparação

## Rótulos dos campos quando o remetente não deu nenhum.
script-field-signature = Assine aqui
script-field-initials = Iniciais
script-field-name = Nome
script-field-email = E-mail
script-field-date = Data (preenchida ao terminar)
script-field-text = Texto
script-field-number = Número
script-field-radio = Escolha uma opção
script-field-checkbox = Marque
script-field-select = Escolha
script-field-for = { $label } (para { $name })
script-field-filled = { $name } (preenchido)
script-field-required = { $name } (obrigatório)
script-your-signature = { $label }: a sua assinatura

## A página e a sua barra.
script-sent-by = Enviado por { $name } ({ $email })
script-page = Página { $n }
script-page-of = Página { $n } de { $total }
script-progress-region = O seu progresso e as suas ações
script-progress = Campos obrigatórios preenchidos: { $done } de { $total }
script-next-field = Campo seguinte
script-reject = Recusar…

## Caixas de diálogo.
script-save = Guardar
script-cancel = Cancelar
script-choose = Escolha…
script-pad = Área de assinatura: desenhe com o rato ou com o dedo, ou use a assinatura escrita abaixo
script-clear = Limpar
script-clear-field = Limpar este campo
script-or-type = Ou escreva-a
script-your-initials = As suas iniciais
script-draw-or-type = Primeiro desenhe ou escreva a sua assinatura.
script-reject-title = Recusar este documento
script-reject-why = Porque o recusa? O remetente verá este motivo.
script-reject-button = Recusar
script-rejected = Recusou este documento. O remetente foi informado.
script-done-wait = Obrigado, terminou. Recebe o documento assinado por e-mail quando todos tiverem assinado.
script-done-sealing = Obrigado: todos assinaram. A cópia assinada está a ser preparada…
script-done-complete = Todos assinaram: este documento está concluído.
script-download = Descarregar a cópia assinada
script-done-sealing-slow = A cópia assinada está a demorar mais do que o habitual. Será enviada por e-mail; também pode recarregar esta página mais tarde para a descarregar.

## Autenticação do destinatário.
script-asked-totp = um código de seis dígitos, da aplicação de autenticação ou enviado por e-mail
script-asked-passkey = a sua chave de acesso
script-asked-password = novamente a palavra-passe da sua conta Docket
script-setup-passkey-what = uma chave de acesso
script-setup-passkey-label = Adicionar uma chave de acesso
script-setup-totp-label = Configurar uma aplicação de autenticação
script-setup-passkey-thing = chave de acesso
script-auth-wrong-account = Tem sessão iniciada como { $other }, mas este documento é para { $email }.
script-auth-sign-in = Este documento pede que entre na sua conta Docket para { $email } antes de o preencher.
script-auth-also-asks = Quando terminar, vai pedir também { $asked }.
script-auth-sign-in-as = Entrar como { $email }
script-auth-no-account = Ainda não tem conta? Enviamos-lhe um link para a criar.
script-auth-create-account = Criar uma conta
script-auth-missing = Sessão iniciada como { $account }. Para assinar, este documento pede { $asked }, e a sua conta ainda não tem { $thing }.
script-auth-missing-how = Configure-a na página da sua conta: demora alguns minutos e traz-o de volta aqui. O que preencher entretanto fica guardado. Também pode recusar o documento sem isso.
script-auth-will-ask = Sessão iniciada como { $account }. Quando terminar, será pedido { $asked }.
script-auth-no-app = Não tem aplicação de autenticação? Ao concluir, prima “Enviar-me um código por e-mail”: o código vai para { $email }. Ou configure uma aplicação agora.
script-auth-signed-in = Sessão iniciada como { $account }.
script-totp-title = Confirmar com um código
script-totp-label = Código de seis dígitos
script-totp-hint = O código que a aplicação de autenticação mostra agora para o Docket, ou um que lhe enviamos por e-mail.
script-code-hint-email = Peça-o por e-mail: vai para { $email } e funciona durante 10 minutos.
script-code-email = Enviar-me um código por e-mail
script-code-sent = Enviámos um código para { $email }. Funciona uma vez, durante 10 minutos.
script-code-wait = Acabou de ser enviado um código: veja o seu e-mail, ou peça de novo dentro de um minuto.
script-password-title = Confirmar com a palavra-passe
script-password-label = Introduza a palavra-passe de { $email } para confirmar que é você.

## Quando um pedido falha.
script-failed = Não funcionou (HTTP { $status }). Recarregue a página e tente novamente.
