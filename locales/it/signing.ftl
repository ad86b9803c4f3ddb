# Le pagine che vede un destinatario.

## La cornice di ogni pagina.
page-skip = Vai al contenuto principale

## La pagina di firma.
sign-attachments = Allegati
sign-attachment-new-tab = Ogni link si apre in una nuova scheda; accanto è indicato il sito a cui porta.
sign-loading = Caricamento del documento…
sign-needs-script = Per firmare serve JavaScript; lo attivi per questa pagina.

## Un link in cui non resta nulla da fare.
sign-cancelled = Questo documento è stato annullato dal mittente. Non resta nulla da fare.
sign-completed = Tutti hanno terminato: il documento è completato. La copia firmata è stata inviata via e-mail.
sign-completed-download = Tutti hanno terminato: il documento è completato.
sign-rejected = Questo documento è stato rifiutato e non può più essere firmato.
sign-expired = Il tempo a tua disposizione per questo documento è scaduto il { $date }. Chiedi al mittente di inviartelo di nuovo; il link funzionerà per un nuovo periodo.

## Un documento che richiede un account Docket.
gate-sent-by = Inviato da { $name } ({ $email })
gate-sign-in = Questo documento le chiede di accedere al suo account Docket per { $email } prima di poterlo vedere.
gate-also-asks = Al termine chiederà anche { $asked }.
gate-asked-totp = un codice di sei cifre, dalla sua app di autenticazione o inviato via e-mail
gate-asked-passkey = la sua passkey
gate-asked-password = di nuovo la password del suo account Docket
gate-wrong-account = Ha effettuato l'accesso come { $other }. Esca e poi acceda come { $email }.
gate-sign-out = Esci
gate-sign-in-button = Accedi
gate-create-account = Crea un account
gate-create-hint = Non ha ancora un account Docket? "Crea un account" invia a { $email } un link per crearne uno.

## Il link diretto di un modello.
direct-asks = { $name } ({ $email }) le chiede di compilare e firmare questo documento.
direct-asks-pages = { $name } ({ $email }) le chiede di compilare e firmare questo documento (pagine: { $pages }).
direct-step-you = Indichi qui il suo nome e il suo indirizzo e-mail.
direct-step-sign = Compili e firmi il documento nella pagina successiva.
direct-step-done = Riceverà il PDF firmato via e-mail.
direct-step-then = Poi passa a { $people }; riceverà il PDF firmato via e-mail quando tutti avranno firmato.
direct-and = { $first } e { $last }
direct-name = Il suo nome completo
direct-email = Il suo indirizzo e-mail
direct-email-hint = Il PDF firmato viene inviato qui.
direct-continue = Continua al documento
direct-recorded = Il suo nome, il suo indirizzo e il luogo da cui firma sono registrati nel registro di controllo del documento e condivisi con { $name }.
direct-expired = Il modulo è scaduto. Prema di nuovo il pulsante.
direct-bad-name = Indichi il suo nome completo (al massimo 200 caratteri).
direct-bad-email = Indichi un indirizzo e-mail valido.

## A signing page in another site's frame (embedded).
embed-open-window = Aprilo in una nuova finestra
