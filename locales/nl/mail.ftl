# De e-mails die een ontvanger krijgt, in de taal van het document.

## Elk bericht.
mail-hello = Hallo,
mail-hello-name = Hallo { $name },
mail-sent-by = Verstuurd door Docket.
mail-open-link = Of open deze link:
mail-personal = Deze link is persoonlijk: stuur hem niet door.
mail-on-behalf = { $member } namens { $team }

## Een verzoek om iets met een document te doen.
mail-request-subject-sign = { $sender } nodigt u uit om "{ $title }" te ondertekenen
mail-request-subject-approve = { $sender } nodigt u uit om "{ $title }" goed te keuren
mail-request-subject-view = { $sender } nodigt u uit om "{ $title }" te bekijken
mail-request-subject-prepare = { $sender } nodigt u uit om "{ $title }" voor te bereiden
mail-request-sign = { $sender } nodigt u uit om het document "{ $title }" te ondertekenen.
mail-request-approve = { $sender } nodigt u uit om het document "{ $title }" goed te keuren.
mail-request-view = { $sender } nodigt u uit om het document "{ $title }" te bekijken.
mail-request-prepare = { $sender } nodigt u uit om het document "{ $title }" voor te bereiden.
mail-request-button-sign = Document ondertekenen
mail-request-button-approve = Bekijken en goedkeuren
mail-request-button-view = Document bekijken
mail-request-button-prepare = Document voorbereiden
mail-request-message = Bericht van { $sender }:
mail-request-deadline = Rond het af vóór { $date }: daarna werkt de link niet meer.
mail-reminder-subject = Herinnering: { $subject }

## Een link om een account aan te maken.
mail-invite-subject = Maak uw Docket-account aan om "{ $title }" te openen
mail-invite-body = { $sender } heeft u "{ $title }" gestuurd en vraagt u eerst in te loggen bij een Docket-account. Volg deze link om uw account voor { $email } aan te maken: u kiest daar een wachtwoord en gaat daarna naar het document.
mail-invite-button = Account aanmaken
mail-invite-expiry = De link werkt één keer, gedurende { $minutes } minuten. Als u hier niet om hebt gevraagd, negeer dan dit bericht.

## Een code om af te ronden, per e-mail aangevraagd op een ondertekenpagina.
mail-code-subject = Uw code voor "{ $title }"
mail-code-body = Voer deze code in op de ondertekenpagina van "{ $title }" om af te ronden:
mail-code-expiry = De code werkt één keer, gedurende { $minutes } minuten. Als u er niet om hebt gevraagd, handelt misschien iemand die bij uw Docket-account kan met dit document: wijzig uw wachtwoord.

## Het document is voltooid.
mail-completed-subject = Voltooid: "{ $title }"
mail-completed-body = Iedereen heeft "{ $title }" ondertekend. De ondertekende pdf is bijgevoegd.

## Iemand heeft het document afgewezen.
mail-rejected-subject = Afgewezen: "{ $title }"
mail-rejected-body = { $by } heeft het document "{ $title }" afgewezen. Het wordt niet voltooid.
mail-rejected-reason = Reden:

## De afzender heeft het document geannuleerd.
mail-cancelled-subject = Geannuleerd: "{ $title }"
mail-cancelled-body = { $sender } heeft het document "{ $title }" geannuleerd. U hoeft niets meer te doen en de ondertekenlink werkt niet meer.
