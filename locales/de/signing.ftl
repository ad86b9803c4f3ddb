# Die Seiten, die ein Empfänger sieht.

## Der Rahmen jeder Seite.
page-skip = Zum Hauptinhalt springen

## Die Seite zum Unterschreiben.
sign-attachments = Anhänge
sign-attachment-new-tab = Jeder Link öffnet sich in einem neuen Tab; die Website, zu der er führt, steht daneben.
sign-loading = Das Dokument wird geladen…
sign-needs-script = Zum Unterschreiben wird JavaScript benötigt; bitte aktivieren Sie es für diese Seite.

## Ein Link, bei dem nichts mehr zu tun ist.
sign-cancelled = Dieses Dokument wurde vom Absender storniert. Es gibt nichts mehr zu tun.
sign-completed = Alle sind fertig: Dieses Dokument ist abgeschlossen. Die unterschriebene Fassung wurde per E-Mail versandt.
sign-completed-download = Alle sind fertig: Dieses Dokument ist abgeschlossen.
sign-rejected = Dieses Dokument wurde abgelehnt und kann nicht mehr unterschrieben werden.
sign-expired = Ihre Frist für dieses Dokument ist am { $date } abgelaufen. Bitten Sie den Absender, es Ihnen erneut zu senden; der Link gilt dann für eine neue Frist.

## Ein Dokument, das ein Docket-Konto verlangt.
gate-sent-by = Gesendet von { $name } ({ $email })
gate-sign-in = Dieses Dokument verlangt, dass Sie sich bei Ihrem Docket-Konto für { $email } anmelden, bevor Sie es sehen können.
gate-also-asks = Wenn Sie fertig sind, wird außerdem { $asked } verlangt.
gate-asked-totp = ein sechsstelliger Code aus Ihrer Authenticator-App oder per E-Mail
gate-asked-passkey = Ihr Passkey
gate-asked-password = erneut das Passwort Ihres Docket-Kontos
gate-wrong-account = Sie sind als { $other } angemeldet. Melden Sie sich ab und dann als { $email } an.
gate-sign-out = Abmelden
gate-sign-in-button = Anmelden
gate-create-account = Konto anlegen
gate-create-hint = Noch kein Docket-Konto? „Konto anlegen“ sendet { $email } einen Link, um eines anzulegen.

## Der direkte Link einer Vorlage.
direct-asks = { $name } ({ $email }) bittet Sie, dieses Dokument auszufüllen und zu unterschreiben.
direct-asks-pages = { $name } ({ $email }) bittet Sie, dieses Dokument auszufüllen und zu unterschreiben (Seiten: { $pages }).
direct-step-you = Geben Sie hier Ihren Namen und Ihre E-Mail-Adresse an.
direct-step-sign = Füllen Sie das Dokument auf der nächsten Seite aus und unterschreiben Sie es.
direct-step-done = Sie erhalten das unterschriebene PDF per E-Mail.
direct-step-then = Danach geht es an { $people }; Sie erhalten das unterschriebene PDF per E-Mail, sobald alle unterschrieben haben.
direct-and = { $first } und { $last }
direct-name = Ihr vollständiger Name
direct-email = Ihre E-Mail-Adresse
direct-email-hint = Das unterschriebene PDF wird hierhin gesendet.
direct-continue = Weiter zum Dokument
direct-recorded = Ihr Name, Ihre Adresse und von wo Sie unterschreiben, werden im Prüfprotokoll des Dokuments festgehalten und mit { $name } geteilt.
direct-expired = Das Formular ist abgelaufen. Bitte drücken Sie die Schaltfläche erneut.
direct-bad-name = Geben Sie Ihren vollständigen Namen an (höchstens 200 Zeichen).
direct-bad-email = Geben Sie eine gültige E-Mail-Adresse an.

## A signing page in another site's frame (embedded).
embed-open-window = In einem neuen Fenster öffnen
