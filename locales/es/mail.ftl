# Los correos que recibe un destinatario, en el idioma del documento.

## Todos los mensajes.
mail-hello = Hola:
mail-hello-name = Hola, { $name }:
mail-sent-by = Enviado por Docket.
mail-open-link = O abra este enlace:
mail-personal = Este enlace es personal: no lo reenvíe.
mail-on-behalf = { $member } en nombre de { $team }

## Una solicitud para actuar sobre un documento.
mail-request-subject-sign = { $sender } le invita a firmar «{ $title }»
mail-request-subject-approve = { $sender } le invita a aprobar «{ $title }»
mail-request-subject-view = { $sender } le invita a ver «{ $title }»
mail-request-subject-prepare = { $sender } le invita a preparar «{ $title }»
mail-request-sign = { $sender } le ha invitado a firmar el documento «{ $title }».
mail-request-approve = { $sender } le ha invitado a aprobar el documento «{ $title }».
mail-request-view = { $sender } le ha invitado a ver el documento «{ $title }».
mail-request-prepare = { $sender } le ha invitado a preparar el documento «{ $title }».
mail-request-button-sign = Firmar el documento
mail-request-button-approve = Revisar y aprobar
mail-request-button-view = Ver el documento
mail-request-button-prepare = Preparar el documento
mail-request-message = Mensaje de { $sender }:
mail-request-deadline = Termine antes del { $date }: después, el enlace dejará de funcionar.
mail-reminder-subject = Recordatorio: { $subject }

## Un enlace para crear una cuenta.
mail-invite-subject = Cree su cuenta de Docket para abrir «{ $title }»
mail-invite-body = { $sender } le ha enviado «{ $title }» y le pide que inicie sesión en una cuenta de Docket antes de actuar. Siga este enlace para crear su cuenta para { $email }: allí elige una contraseña y después pasa al documento.
mail-invite-button = Crear su cuenta
mail-invite-expiry = El enlace funciona una sola vez, durante { $minutes } minutos. Si no lo ha pedido, ignore este mensaje.

## Un código para terminar, pedido por correo desde una página de firma.
mail-code-subject = Su código para «{ $title }»
mail-code-body = Introduzca este código en la página de firma de «{ $title }» para terminar:
mail-code-expiry = El código funciona una sola vez, durante { $minutes } minutos. Si no lo ha pedido, puede que alguien con acceso a su cuenta de Docket esté actuando sobre este documento: cambie su contraseña.

## El documento está completo.
mail-completed-subject = Completado: «{ $title }»
mail-completed-body = Todos han firmado «{ $title }». El PDF firmado va adjunto.

## Alguien rechazó el documento.
mail-rejected-subject = Rechazado: «{ $title }»
mail-rejected-body = { $by } ha rechazado el documento «{ $title }». No se completará.
mail-rejected-reason = Motivo:

## El remitente canceló el documento.
mail-cancelled-subject = Cancelado: «{ $title }»
mail-cancelled-body = { $sender } ha cancelado el documento «{ $title }». Ya no tiene que hacer nada y su enlace de firma ha dejado de funcionar.
