# Lo que los scripts de la página de firma dicen al destinatario. Las variables son simples
# marcadores que rellena el script.

## La línea de estado.
script-status-cc = Recibirá una copia de este documento cuando todos hayan firmado.
script-status-finished = Ha terminado. Gracias.
script-status-not-your-turn = Aún no es su turno: recibirá un correo electrónico cuando lo sea.
script-status-sign-out-first = Cierre la sesión y luego inicie sesión como { $email } para rellenar este documento.
script-status-sign-in-first = Ya puede leer el documento. Para rellenarlo, inicie sesión primero como { $email }.
script-status-assistant = Rellene lo que pueda para los destinatarios siguientes y después pulse «{ $action }».
script-status-fields-left = Campos obligatorios aún vacíos: { $count }. «Campo siguiente» le lleva a cada uno; después pulse «{ $action }».
script-status-fields-left-setup = Campos obligatorios aún vacíos: { $count }. «Campo siguiente» le lleva a cada uno; después configure { $what } para firmar.
script-status-setup = Todo lo obligatorio está rellenado. Para firmar, configure primero { $what } («{ $label }») o rechace el documento.
script-status-read = Lea el documento y después pulse «{ $action }».
script-status-ready = Todo lo obligatorio está rellenado. Revise el documento y después pulse «{ $action }».

## Los botones para terminar, según el rol.
script-action-signer = Terminar y firmar
script-action-approver = Aprobar
script-action-viewer = Marcar como visto
script-action-assistant = Terminar la preparación

## Etiquetas de los campos cuando el remitente no dio ninguna.
script-field-signature = Firme aquí
script-field-initials = Iniciales
script-field-name = Nombre
script-field-email = Correo electrónico
script-field-date = Fecha (se rellena al terminar)
script-field-text = Texto
script-field-number = Número
script-field-radio = Elija una opción
script-field-checkbox = Marque
script-field-select = Elija
script-field-for = { $label } (para { $name })
script-field-filled = { $name } (rellenado)
script-field-required = { $name } (obligatorio)
script-your-signature = { $label }: su firma

## La página y su barra.
script-sent-by = Enviado por { $name } ({ $email })
script-page = Página { $n }
script-page-of = Página { $n } de { $total }
script-progress-region = Su progreso y sus acciones
script-progress = Campos obligatorios rellenados: { $done } de { $total }
script-next-field = Campo siguiente
script-reject = Rechazar…

## Diálogos.
script-save = Guardar
script-cancel = Cancelar
script-choose = Elija…
script-pad = Área de firma: dibuje con el ratón o con el dedo, o use la firma escrita de abajo
script-clear = Borrar
script-clear-field = Vaciar este campo
script-or-type = O escríbala
script-your-initials = Sus iniciales
script-draw-or-type = Primero dibuje o escriba su firma.
script-reject-title = Rechazar este documento
script-reject-why = ¿Por qué lo rechaza? El remitente verá este motivo.
script-reject-button = Rechazar
script-rejected = Ha rechazado este documento. Se ha informado al remitente.
script-done-wait = Gracias, ha terminado. Recibirá el documento firmado por correo electrónico cuando todos hayan firmado.
script-done-sealing = Gracias: todos han firmado. Se está preparando la copia firmada…
script-done-complete = Todos han firmado: este documento está completo.
script-download = Descargar la copia firmada
script-done-sealing-slow = La copia firmada tarda más de lo habitual. Se la enviaremos por correo electrónico; también puede recargar esta página más tarde para descargarla.

## Autenticación del destinatario.
script-asked-totp = un código de seis dígitos, de su aplicación de autenticación o enviado por correo
script-asked-passkey = su llave de acceso
script-asked-password = de nuevo la contraseña de su cuenta de Docket
script-setup-passkey-what = una llave de acceso
script-setup-passkey-label = Añadir una llave de acceso
script-setup-totp-label = Configurar una aplicación de autenticación
script-setup-passkey-thing = llave de acceso
script-auth-wrong-account = Ha iniciado sesión como { $other }, pero este documento es para { $email }.
script-auth-sign-in = Este documento le pide que inicie sesión en su cuenta de Docket para { $email } antes de rellenarlo.
script-auth-also-asks = Cuando termine, también le pedirá { $asked }.
script-auth-sign-in-as = Iniciar sesión como { $email }
script-auth-no-account = ¿Aún no tiene cuenta? Le enviamos un enlace para crearla.
script-auth-create-account = Crear una cuenta
script-auth-missing = Sesión iniciada como { $account }. Para firmar, este documento pide { $asked }, y su cuenta aún no tiene { $thing }.
script-auth-missing-how = Configúrelo en la página de su cuenta: tarda unos minutos y le trae de vuelta aquí. Lo que rellene mientras tanto se conserva. También puede rechazar el documento sin ello.
script-auth-will-ask = Sesión iniciada como { $account }. Cuando termine, se le pedirá { $asked }.
script-auth-no-app = ¿No tiene aplicación de autenticación? Al terminar, pulse «Enviarme un código por correo»: el código llega a { $email }. O configure una aplicación ahora.
script-auth-signed-in = Sesión iniciada como { $account }.
script-totp-title = Confirmar con un código
script-totp-label = Código de seis dígitos
script-totp-hint = El código que su aplicación de autenticación muestra ahora para Docket, o uno que le enviamos por correo.
script-code-hint-email = Pídalo por correo: llega a { $email } y sirve durante 10 minutos.
script-code-email = Enviarme un código por correo
script-code-sent = Hemos enviado un código a { $email }. Sirve una vez, durante 10 minutos.
script-code-wait = Se acaba de enviar un código: revise su correo o vuelva a pedirlo dentro de un minuto.
script-password-title = Confirmar con su contraseña
script-password-label = Escriba la contraseña de { $email } para confirmar que es usted.

## Cuando una solicitud falla.
script-failed = No ha funcionado (HTTP { $status }). Recargue la página e inténtelo de nuevo.
