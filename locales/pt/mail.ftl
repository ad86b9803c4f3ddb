# Os e-mails que um destinatário recebe, no idioma do documento.

## Todas as mensagens.
mail-hello = Olá,
mail-hello-name = Olá { $name },
mail-sent-by = Enviado pelo Docket.
mail-open-link = Ou abra este link:
mail-personal = Este link é pessoal: não o reencaminhe.
mail-on-behalf = { $member } em nome de { $team }

## Um pedido para agir sobre um documento.
mail-request-subject-sign = { $sender } convidou você a assinar "{ $title }"
mail-request-subject-approve = { $sender } convidou você a aprovar "{ $title }"
mail-request-subject-view = { $sender } convidou você a ver "{ $title }"
mail-request-subject-prepare = { $sender } convidou você a preparar "{ $title }"
mail-request-sign = { $sender } convidou você a assinar o documento "{ $title }".
mail-request-approve = { $sender } convidou você a aprovar o documento "{ $title }".
mail-request-view = { $sender } convidou você a ver o documento "{ $title }".
mail-request-prepare = { $sender } convidou você a preparar o documento "{ $title }".
mail-request-button-sign = Assinar o documento
mail-request-button-approve = Rever e aprovar
mail-request-button-view = Ver o documento
mail-request-button-prepare = Preparar o documento
mail-request-message = Mensagem de { $sender }:
mail-request-deadline = Conclua até { $date }: depois disso, o link deixará de funcionar.
mail-reminder-subject = Lembrete: { $subject }

## Um link para criar uma conta.
mail-invite-subject = Crie a sua conta Docket para abrir "{ $title }"
mail-invite-body = { $sender } enviou-lhe "{ $title }" e pede que entre numa conta Docket antes de agir. Siga este link para criar a sua conta para { $email }: lá escolhe uma palavra-passe e depois segue para o documento.
mail-invite-button = Criar a sua conta
mail-invite-expiry = O link funciona uma vez, durante { $minutes } minutos. Se não o pediu, ignore esta mensagem.

## Um código para concluir, pedido por e-mail numa página de assinatura.
mail-code-subject = O seu código para "{ $title }"
mail-code-body = Introduza este código na página de assinatura de "{ $title }" para concluir:
mail-code-expiry = O código funciona uma vez, durante { $minutes } minutos. Se não o pediu, alguém que consegue entrar na sua conta Docket pode estar a agir sobre este documento: altere a sua palavra-passe.

## O documento está concluído.
mail-completed-subject = Concluído: "{ $title }"
mail-completed-body = Todos assinaram "{ $title }". O PDF assinado segue em anexo.

## Alguém recusou o documento.
mail-rejected-subject = Recusado: "{ $title }"
mail-rejected-body = { $by } recusou o documento "{ $title }". Ele não será concluído.
mail-rejected-reason = Motivo:

## O remetente cancelou o documento.
mail-cancelled-subject = Cancelado: "{ $title }"
mail-cancelled-body = { $sender } cancelou o documento "{ $title }". Já não precisa de fazer nada, e o link de assinatura deixou de funcionar.
