# Las páginas que ve un destinatario.

## El marco de cada página.
page-skip = Ir al contenido principal

## La página de firma.
sign-attachments = Adjuntos
sign-attachment-new-tab = Cada enlace se abre en una pestaña nueva; al lado figura el sitio al que lleva.
sign-loading = Cargando el documento…
sign-needs-script = Para firmar se necesita JavaScript; actívelo para esta página.

## Un enlace en el que no queda nada por hacer.
sign-cancelled = El remitente canceló este documento. No queda nada por hacer.
sign-completed = Todos han terminado: este documento está completo. La copia firmada se envió por correo electrónico.
sign-completed-download = Todos han terminado: este documento está completo.
sign-rejected = Este documento fue rechazado y ya no se puede firmar.
sign-expired = Su plazo para actuar sobre este documento terminó el { $date }. Pida al remitente que se lo vuelva a enviar; el enlace funcionará entonces durante un nuevo plazo.

## Un documento que pide una cuenta de Docket.
gate-sent-by = Enviado por { $name } ({ $email })
gate-sign-in = Este documento le pide que inicie sesión en su cuenta de Docket para { $email } antes de poder verlo.
gate-also-asks = Cuando termine, también le pedirá { $asked }.
gate-asked-totp = un código de seis dígitos, de su aplicación de autenticación o enviado por correo
gate-asked-passkey = su llave de acceso
gate-asked-password = de nuevo la contraseña de su cuenta de Docket
gate-wrong-account = Ha iniciado sesión como { $other }. Cierre la sesión y luego inicie sesión como { $email }.
gate-sign-out = Cerrar sesión
gate-sign-in-button = Iniciar sesión
gate-create-account = Crear una cuenta
gate-create-hint = ¿Aún no tiene cuenta de Docket? «Crear una cuenta» envía a { $email } un enlace para crearla.

## El enlace directo de una plantilla.
direct-asks = { $name } ({ $email }) le pide que rellene y firme este documento.
direct-asks-pages = { $name } ({ $email }) le pide que rellene y firme este documento (páginas: { $pages }).
direct-step-you = Indique aquí su nombre y su dirección de correo electrónico.
direct-step-sign = Rellene y firme el documento en la página siguiente.
direct-step-done = Recibirá el PDF firmado por correo electrónico.
direct-step-then = Después pasa a { $people }; recibirá el PDF firmado por correo electrónico cuando todos hayan firmado.
direct-and = { $first } y { $last }
direct-name = Su nombre completo
direct-email = Su dirección de correo electrónico
direct-email-hint = El PDF firmado se envía aquí.
direct-continue = Continuar al documento
direct-recorded = Su nombre, su dirección y desde dónde firma quedan registrados en el registro de auditoría del documento y se comparten con { $name }.
direct-expired = El formulario ha caducado. Pulse el botón de nuevo.
direct-bad-name = Indique su nombre completo (200 caracteres como máximo).
direct-bad-email = Indique una dirección de correo electrónico válida.

## A signing page in another site's frame (embedded).
embed-open-window = Abrirlo en una ventana nueva
