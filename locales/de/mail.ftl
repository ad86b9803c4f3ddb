# E-Mails an Empfänger, in der Sprache des Dokuments. { $title } ist der Titel des Dokuments.

## Jede Nachricht.
mail-hello = Hallo,
mail-hello-name = Hallo { $name },
mail-sent-by = Gesendet von Docket.
mail-open-link = Oder öffnen Sie diesen Link:
mail-personal = Dieser Link ist persönlich: Bitte leiten Sie ihn nicht weiter.
mail-on-behalf = { $member } im Auftrag von { $team }

## Eine Aufforderung, ein Dokument zu bearbeiten.
mail-request-subject-sign = { $sender } bittet Sie, „{ $title }“ zu unterschreiben
mail-request-subject-approve = { $sender } bittet Sie, „{ $title }“ zu genehmigen
mail-request-subject-view = { $sender } bittet Sie, „{ $title }“ anzusehen
mail-request-subject-prepare = { $sender } bittet Sie, „{ $title }“ vorzubereiten
mail-request-sign = { $sender } bittet Sie, das Dokument „{ $title }“ zu unterschreiben.
mail-request-approve = { $sender } bittet Sie, das Dokument „{ $title }“ zu genehmigen.
mail-request-view = { $sender } bittet Sie, das Dokument „{ $title }“ anzusehen.
mail-request-prepare = { $sender } bittet Sie, das Dokument „{ $title }“ vorzubereiten.
mail-request-button-sign = Dokument unterschreiben
mail-request-button-approve = Prüfen und genehmigen
mail-request-button-view = Dokument ansehen
mail-request-button-prepare = Dokument vorbereiten
mail-request-message = Nachricht von { $sender }:
mail-request-deadline = Bitte erledigen Sie es bis { $date }: danach funktioniert der Link nicht mehr.
mail-reminder-subject = Erinnerung: { $subject }

## Ein Link, um ein Konto anzulegen.
mail-invite-subject = Legen Sie Ihr Docket-Konto an, um „{ $title }“ zu öffnen
mail-invite-body = { $sender } hat Ihnen „{ $title }“ gesendet und bittet Sie, sich vorher bei einem Docket-Konto anzumelden. Über diesen Link legen Sie Ihr Konto für { $email } an: Sie wählen dort ein Passwort und gelangen dann zum Dokument.
mail-invite-button = Konto anlegen
mail-invite-expiry = Der Link funktioniert einmal und { $minutes } Minuten lang. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.

## Ein Code zum Abschließen, auf der Signierseite per E-Mail angefordert.
mail-code-subject = Ihr Code für „{ $title }“
mail-code-body = Geben Sie diesen Code auf der Signierseite von „{ $title }“ ein, um abzuschließen:
mail-code-expiry = Der Code funktioniert einmal und { $minutes } Minuten lang. Wenn Sie ihn nicht angefordert haben, handelt vielleicht jemand mit Zugang zu Ihrem Docket-Konto an diesem Dokument: Ändern Sie Ihr Passwort.

## Das Dokument ist abgeschlossen.
mail-completed-subject = Abgeschlossen: „{ $title }“
mail-completed-body = Alle haben „{ $title }“ unterschrieben. Das unterschriebene PDF ist angehängt.

## Jemand hat das Dokument abgelehnt.
mail-rejected-subject = Abgelehnt: „{ $title }“
mail-rejected-body = { $by } hat das Dokument „{ $title }“ abgelehnt. Es wird nicht abgeschlossen.
mail-rejected-reason = Begründung:

## Der Absender hat das Dokument storniert.
mail-cancelled-subject = Storniert: „{ $title }“
mail-cancelled-body = { $sender } hat das Dokument „{ $title }“ storniert. Sie müssen nichts mehr tun, und der Link zum Unterschreiben funktioniert nicht mehr.
