# Ciò che gli script della pagina di firma dicono al destinatario. Le variabili sono semplici
# segnaposto riempiti dallo script.

## La riga di stato.
script-status-cc = Riceverà una copia di questo documento quando tutti avranno firmato.
script-status-finished = Ha terminato. Grazie.
script-status-not-your-turn = Non è ancora il suo turno: riceverà un'e-mail quando lo sarà.
script-status-sign-out-first = Esca e poi acceda come { $email } per compilare questo documento.
script-status-sign-in-first = Può già leggere il documento. Per compilarlo, acceda prima come { $email }.
script-status-assistant = Compili ciò che può per i destinatari successivi, poi prema "{ $action }".
script-status-fields-left = Campi obbligatori ancora vuoti: { $count }. "Campo successivo" la porta a ciascuno; poi prema "{ $action }".
script-status-fields-left-setup = Campi obbligatori ancora vuoti: { $count }. "Campo successivo" la porta a ciascuno; poi configuri { $what } per firmare.
script-status-setup = Tutto ciò che è obbligatorio è compilato. Per firmare, configuri prima { $what } ("{ $label }"), oppure rifiuti il documento.
script-status-read = Legga il documento, poi prema "{ $action }".
script-status-ready = Tutto ciò che è obbligatorio è compilato. Controlli il documento, poi prema "{ $action }".

## I pulsanti per terminare, secondo il ruolo.
script-action-signer = Termina e firma
script-action-approver = Approva
script-action-viewer = Segna come visto
script-action-assistant = Termina la preparazione

## Etichette dei campi quando il mittente non ne ha date.
script-field-signature = Firmi qui
script-field-initials = Iniziali
script-field-name = Nome
script-field-email = E-mail
script-field-date = Data (compilata al termine)
script-field-text = Testo
script-field-number = Numero
script-field-radio = Scelga un'opzione
script-field-checkbox = Spunti
script-field-select = Scelga
script-field-for = { $label } (per { $name })
script-field-filled = { $name } (compilato)
script-field-required = { $name } (obbligatorio)
script-your-signature = { $label }: la sua firma

## La pagina e la sua barra.
script-sent-by = Inviato da { $name } ({ $email })
script-page = Pagina { $n }
script-page-of = Pagina { $n } di { $total }
script-progress-region = I suoi progressi e le sue azioni
script-progress = Campi obbligatori compilati: { $done } di { $total }
script-next-field = Campo successivo
script-reject = Rifiuta…

## Finestre di dialogo.
script-save = Salva
script-cancel = Annulla
script-choose = Scelga…
script-pad = Area della firma: disegni con il mouse o con il dito, oppure usi la firma digitata qui sotto
script-clear = Cancella
script-clear-field = Svuota questo campo
script-or-type = Oppure la digiti
script-your-initials = Le sue iniziali
script-draw-or-type = Prima disegni o digiti la sua firma.
script-reject-title = Rifiuta questo documento
script-reject-why = Perché lo rifiuta? Il mittente vedrà questo motivo.
script-reject-button = Rifiuta
script-rejected = Ha rifiutato questo documento. Il mittente è stato informato.
script-done-wait = Grazie, ha terminato. Riceverà il documento firmato via e-mail quando tutti avranno firmato.
script-done-sealing = Grazie: tutti hanno firmato. La copia firmata è in preparazione…
script-done-complete = Tutti hanno firmato: il documento è completato.
script-download = Scarica la copia firmata
script-done-sealing-slow = La copia firmata richiede più tempo del solito. Le verrà inviata via e-mail; può anche ricaricare questa pagina più tardi per scaricarla.

## Autenticazione del destinatario.
script-asked-totp = un codice di sei cifre, dall'app di autenticazione o inviato via e-mail
script-asked-passkey = la sua passkey
script-asked-password = di nuovo la password del suo account Docket
script-setup-passkey-what = una passkey
script-setup-passkey-label = Aggiungi una passkey
script-setup-totp-label = Configura un'app di autenticazione
script-setup-passkey-thing = passkey
script-auth-wrong-account = Ha effettuato l'accesso come { $other }, ma questo documento è per { $email }.
script-auth-sign-in = Questo documento le chiede di accedere al suo account Docket per { $email } prima di compilarlo.
script-auth-also-asks = Al termine chiederà anche { $asked }.
script-auth-sign-in-as = Accedi come { $email }
script-auth-no-account = Non ha ancora un account? Le inviamo un link per crearne uno.
script-auth-create-account = Crea un account
script-auth-missing = Accesso effettuato come { $account }. Per firmare, questo documento chiede { $asked }, e il suo account non ha ancora: { $thing }.
script-auth-missing-how = Lo configuri nella pagina del suo account: richiede pochi minuti e la riporta qui. Ciò che compila nel frattempo viene conservato. Può anche rifiutare il documento senza di esso.
script-auth-will-ask = Accesso effettuato come { $account }. Al termine le verrà chiesto { $asked }.
script-auth-no-app = Nessuna app di autenticazione? Alla fine prema «Inviami un codice via e-mail»: il codice arriva a { $email }. Oppure configuri ora un'app.
script-auth-signed-in = Accesso effettuato come { $account }.
script-totp-title = Conferma con un codice
script-totp-label = Codice di sei cifre
script-totp-hint = Il codice che l'app di autenticazione mostra ora per Docket, o uno che le inviamo via e-mail.
script-code-hint-email = Lo chieda via e-mail: arriva a { $email } e vale 10 minuti.
script-code-email = Inviami un codice via e-mail
script-code-sent = Abbiamo inviato un codice a { $email }. Funziona una volta, per 10 minuti.
script-code-wait = Un codice è appena stato inviato: controlli la posta, o lo richieda tra un minuto.
script-password-title = Conferma con la password
script-password-label = Inserisca la password di { $email } per confermare che è lei.

## Quando una richiesta non riesce.
script-failed = Non ha funzionato (HTTP { $status }). Ricarichi la pagina e riprovi.
