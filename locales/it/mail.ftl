# Le e-mail che riceve un destinatario, nella lingua del documento.

## Ogni messaggio.
mail-hello = Salve,
mail-hello-name = Salve { $name },
mail-sent-by = Inviato da Docket.
mail-open-link = Oppure apra questo link:
mail-personal = Questo link è personale: non lo inoltri.
mail-on-behalf = { $member } per conto di { $team }

## Una richiesta di agire su un documento.
mail-request-subject-sign = { $sender } la invita a firmare "{ $title }"
mail-request-subject-approve = { $sender } la invita ad approvare "{ $title }"
mail-request-subject-view = { $sender } la invita a visualizzare "{ $title }"
mail-request-subject-prepare = { $sender } la invita a preparare "{ $title }"
mail-request-sign = { $sender } la invita a firmare il documento "{ $title }".
mail-request-approve = { $sender } la invita ad approvare il documento "{ $title }".
mail-request-view = { $sender } la invita a visualizzare il documento "{ $title }".
mail-request-prepare = { $sender } la invita a preparare il documento "{ $title }".
mail-request-button-sign = Firma il documento
mail-request-button-approve = Rivedi e approva
mail-request-button-view = Visualizza il documento
mail-request-button-prepare = Prepara il documento
mail-request-message = Messaggio di { $sender }:
mail-request-deadline = Completa entro il { $date }: dopo, il link non funzionerà più.
mail-reminder-subject = Promemoria: { $subject }

## Un link per creare un account.
mail-invite-subject = Crei il suo account Docket per aprire "{ $title }"
mail-invite-body = { $sender } le ha inviato "{ $title }" e le chiede di accedere a un account Docket prima di agire. Segua questo link per creare il suo account per { $email }: lì sceglie una password e poi passa al documento.
mail-invite-button = Crea l'account
mail-invite-expiry = Il link funziona una sola volta, per { $minutes } minuti. Se non l'ha richiesto, ignori questo messaggio.

## Un codice per concludere, richiesto via e-mail da una pagina di firma.
mail-code-subject = Il suo codice per "{ $title }"
mail-code-body = Inserisca questo codice nella pagina di firma di "{ $title }" per concludere:
mail-code-expiry = Il codice funziona una sola volta, per { $minutes } minuti. Se non l'ha richiesto, qualcuno che può accedere al suo account Docket potrebbe agire su questo documento: cambi la password.

## Il documento è completato.
mail-completed-subject = Completato: "{ $title }"
mail-completed-body = Tutti hanno firmato "{ $title }". Il PDF firmato è allegato.

## Qualcuno ha rifiutato il documento.
mail-rejected-subject = Rifiutato: "{ $title }"
mail-rejected-body = { $by } ha rifiutato il documento "{ $title }". Non verrà completato.
mail-rejected-reason = Motivo:

## Il mittente ha annullato il documento.
mail-cancelled-subject = Annullato: "{ $title }"
mail-cancelled-body = { $sender } ha annullato il documento "{ $title }". Non deve più fare nulla e il link per la firma non funziona più.
