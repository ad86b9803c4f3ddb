# De pagina's die een ontvanger ziet.

## Het kader van elke pagina.
page-skip = Naar de hoofdinhoud

## De ondertekenpagina.
sign-attachments = Bijlagen
sign-attachment-new-tab = Elke link opent in een nieuw tabblad; de site waar hij naartoe gaat staat ernaast.
sign-loading = Het document wordt geladen…
sign-needs-script = Voor ondertekenen is JavaScript nodig; zet het aan voor deze pagina.

## Een link waarbij niets meer te doen is.
sign-cancelled = Dit document is door de afzender geannuleerd. Er is niets meer te doen.
sign-completed = Iedereen is klaar: dit document is voltooid. De ondertekende versie is per e-mail verstuurd.
sign-completed-download = Iedereen is klaar: dit document is voltooid.
sign-rejected = Dit document is afgewezen en kan niet meer worden ondertekend.
sign-expired = Uw termijn voor dit document is verlopen op { $date }. Vraag de afzender het opnieuw te sturen; de link werkt dan voor een nieuwe termijn.

## Een document dat een Docket-account vraagt.
gate-sent-by = Verstuurd door { $name } ({ $email })
gate-sign-in = Dit document vraagt u in te loggen bij uw Docket-account voor { $email } voordat u het kunt zien.
gate-also-asks = Als u klaar bent, vraagt het ook om { $asked }.
gate-asked-totp = een zescijferige code, uit uw authenticator-app of per e-mail
gate-asked-passkey = uw passkey
gate-asked-password = opnieuw het wachtwoord van uw Docket-account
gate-wrong-account = U bent ingelogd als { $other }. Log uit en log daarna in als { $email }.
gate-sign-out = Uitloggen
gate-sign-in-button = Inloggen
gate-create-account = Account aanmaken
gate-create-hint = Nog geen Docket-account? "Account aanmaken" stuurt { $email } een link om er een aan te maken.

## De directe link van een sjabloon.
direct-asks = { $name } ({ $email }) vraagt u dit document in te vullen en te ondertekenen.
direct-asks-pages = { $name } ({ $email }) vraagt u dit document in te vullen en te ondertekenen (pagina's: { $pages }).
direct-step-you = Vul hier uw naam en e-mailadres in.
direct-step-sign = Vul het document op de volgende pagina in en onderteken het.
direct-step-done = U krijgt de ondertekende pdf per e-mail.
direct-step-then = Daarna gaat het naar { $people }; u krijgt de ondertekende pdf per e-mail zodra iedereen heeft ondertekend.
direct-and = { $first } en { $last }
direct-name = Uw volledige naam
direct-email = Uw e-mailadres
direct-email-hint = De ondertekende pdf wordt hierheen gestuurd.
direct-continue = Verder naar het document
direct-recorded = Uw naam, adres en de plaats vanwaar u ondertekent worden vastgelegd in het auditlogboek van het document en gedeeld met { $name }.
direct-expired = Het formulier is verlopen. Druk nogmaals op de knop.
direct-bad-name = Vul uw volledige naam in (hoogstens 200 tekens).
direct-bad-email = Vul een geldig e-mailadres in.

## A signing page in another site's frame (embedded).
embed-open-window = Open het in een nieuw venster
