# Was die Skripte der Seite zum Unterschreiben dem Empfänger sagen. Platzhalter wie { $name }
# füllt das Skript aus; diese Nachrichten verwenden Variablen nur als einfache Platzhalter.

## Die Statuszeile.
script-status-cc = Sie erhalten eine Kopie dieses Dokuments, sobald alle unterschrieben haben.
script-status-finished = Sie sind fertig. Vielen Dank.
script-status-not-your-turn = Sie sind noch nicht an der Reihe: Sie erhalten eine E-Mail, sobald es so weit ist.
script-status-sign-out-first = Melden Sie sich ab und dann als { $email } an, um dieses Dokument auszufüllen.
script-status-sign-in-first = Sie können das Dokument jetzt lesen. Um es auszufüllen, melden Sie sich zuerst als { $email } an.
script-status-assistant = Füllen Sie aus, was Sie für die Empfänger nach Ihnen können, und drücken Sie dann „{ $action }“.
script-status-fields-left = Noch leere Pflichtfelder: { $count }. „Nächstes Feld“ führt Sie zu jedem; drücken Sie dann „{ $action }“.
script-status-fields-left-setup = Noch leere Pflichtfelder: { $count }. „Nächstes Feld“ führt Sie zu jedem; richten Sie dann { $what } ein, um zu unterschreiben.
script-status-setup = Alle Pflichtfelder sind ausgefüllt. Um zu unterschreiben, richten Sie zuerst { $what } ein („{ $label }“), oder lehnen Sie das Dokument ab.
script-status-read = Lesen Sie das Dokument und drücken Sie dann „{ $action }“.
script-status-ready = Alle Pflichtfelder sind ausgefüllt. Prüfen Sie das Dokument und drücken Sie dann „{ $action }“.

## Die Schaltflächen zum Abschließen, nach Rolle.
script-action-signer = Abschließen und unterschreiben
script-action-approver = Genehmigen
script-action-viewer = Als gesehen markieren
script-action-assistant = Vorbereitung abschließen

## Feldbeschriftungen, wenn der Absender keine angegeben hat.
script-field-signature = Hier unterschreiben
script-field-initials = Initialen
script-field-name = Name
script-field-email = E-Mail
script-field-date = Datum (wird beim Abschließen eingetragen)
script-field-text = Text
script-field-number = Zahl
script-field-radio = Eine Option wählen
script-field-checkbox = Ankreuzen
script-field-select = Auswählen
script-field-for = { $label } (für { $name })
script-field-filled = { $name } (ausgefüllt)
script-field-required = { $name } (Pflichtfeld)
script-your-signature = { $label }: Ihre Unterschrift

## Die Seite und ihre Leiste.
script-sent-by = Gesendet von { $name } ({ $email })
script-page = Seite { $n }
script-page-of = Seite { $n } von { $total }
script-progress-region = Ihr Fortschritt und Ihre Aktionen
script-progress = Ausgefüllte Pflichtfelder: { $done } von { $total }
script-next-field = Nächstes Feld
script-reject = Ablehnen…

## Dialoge.
script-save = Speichern
script-cancel = Abbrechen
script-choose = Auswählen…
script-pad = Unterschriftenfeld: Zeichnen Sie mit der Maus oder dem Finger, oder tippen Sie Ihre Unterschrift unten ein
script-clear = Löschen
script-clear-field = Feld leeren
script-or-type = Oder eintippen
script-your-initials = Ihre Initialen
script-draw-or-type = Zeichnen oder tippen Sie zuerst Ihre Unterschrift.
script-reject-title = Dieses Dokument ablehnen
script-reject-why = Warum lehnen Sie es ab? Der Absender sieht diese Begründung.
script-reject-button = Ablehnen
script-rejected = Sie haben dieses Dokument abgelehnt. Der Absender wurde benachrichtigt.
script-done-wait = Vielen Dank, Sie sind fertig. Sie erhalten das unterschriebene Dokument per E-Mail, sobald alle unterschrieben haben.
script-done-sealing = Vielen Dank: Alle haben unterschrieben. Die unterschriebene Fassung wird erstellt…
script-done-complete = Alle haben unterschrieben: Dieses Dokument ist abgeschlossen.
script-download = Unterschriebene Fassung herunterladen
script-done-sealing-slow = Die unterschriebene Fassung braucht länger als üblich. Sie wird Ihnen per E-Mail gesendet; Sie können diese Seite auch später neu laden, um sie herunterzuladen.

## Authentifizierung des Empfängers.
script-asked-totp = einen sechsstelligen Code aus Ihrer Authenticator-App oder per E-Mail
script-asked-passkey = Ihren Passkey
script-asked-password = erneut das Passwort Ihres Docket-Kontos
script-setup-passkey-what = einen Passkey
script-setup-passkey-label = Passkey hinzufügen
script-setup-totp-label = Authenticator-App einrichten
script-setup-passkey-thing = Passkey
script-auth-wrong-account = Sie sind als { $other } angemeldet, aber dieses Dokument ist für { $email }.
script-auth-sign-in = Dieses Dokument verlangt, dass Sie sich bei Ihrem Docket-Konto für { $email } anmelden, bevor Sie es ausfüllen.
script-auth-also-asks = Wenn Sie fertig sind, wird außerdem { $asked } verlangt.
script-auth-sign-in-as = Als { $email } anmelden
script-auth-no-account = Noch kein Konto? Wir senden Ihnen einen Link, um eines anzulegen.
script-auth-create-account = Konto anlegen
script-auth-missing = Angemeldet als { $account }. Zum Unterschreiben verlangt dieses Dokument { $asked }, und Ihr Konto hat noch keine(n) { $thing }.
script-auth-missing-how = Richten Sie es auf Ihrer Kontoseite ein: Das dauert wenige Minuten und bringt Sie hierher zurück. Was Sie inzwischen ausfüllen, bleibt erhalten. Sie können das Dokument auch ohne dies ablehnen.
script-auth-will-ask = Angemeldet als { $account }. Wenn Sie fertig sind, werden Sie nach { $asked } gefragt.
script-auth-no-app = Keine Authenticator-App? Drücken Sie beim Abschließen „Code per E-Mail senden“: Der Code kommt an { $email }. Oder richten Sie jetzt eine App ein.
script-auth-signed-in = Angemeldet als { $account }.
script-totp-title = Mit einem Code bestätigen
script-totp-label = Sechsstelliger Code
script-totp-hint = Der Code, den Ihre Authenticator-App jetzt für Docket zeigt, oder einer, den wir Ihnen per E-Mail senden.
script-code-hint-email = Fordern Sie ihn per E-Mail an: Er geht an { $email } und gilt 10 Minuten.
script-code-email = Code per E-Mail senden
script-code-sent = Wir haben einen Code an { $email } gesendet. Er gilt einmal, 10 Minuten lang.
script-code-wait = Gerade wurde ein Code gesendet: Sehen Sie in Ihre E-Mails oder fordern Sie in einer Minute einen neuen an.
script-password-title = Mit Ihrem Passwort bestätigen
script-password-label = Geben Sie das Passwort von { $email } ein, um zu bestätigen, dass Sie es sind.

## Wenn eine Anfrage fehlschlägt.
script-failed = Das hat nicht funktioniert (HTTP { $status }). Laden Sie die Seite neu und versuchen Sie es noch einmal.
