# Wat de scripts van de ondertekenpagina tegen de ontvanger zeggen. Variabelen zijn gewone
# plaatshouders die het script invult.

## De statusregel.
script-status-cc = U krijgt een kopie van dit document zodra iedereen heeft ondertekend.
script-status-finished = U bent klaar. Dank u wel.
script-status-not-your-turn = U bent nog niet aan de beurt: u krijgt een e-mail zodra dat zo is.
script-status-sign-out-first = Log uit en log daarna in als { $email } om dit document in te vullen.
script-status-sign-in-first = U kunt het document nu lezen. Log eerst in als { $email } om het in te vullen.
script-status-assistant = Vul in wat u kunt voor de ontvangers na u en druk daarna op "{ $action }".
script-status-fields-left = Verplichte velden nog leeg: { $count }. "Volgend veld" brengt u naar elk ervan; druk daarna op "{ $action }".
script-status-fields-left-setup = Verplichte velden nog leeg: { $count }. "Volgend veld" brengt u naar elk ervan; stel daarna { $what } in om te ondertekenen.
script-status-setup = Alles wat verplicht is, is ingevuld. Stel eerst { $what } in ("{ $label }") om te ondertekenen, of wijs het document af.
script-status-read = Lees het document en druk daarna op "{ $action }".
script-status-ready = Alles wat verplicht is, is ingevuld. Controleer het document en druk daarna op "{ $action }".

## De knoppen om af te ronden, per rol.
script-action-signer = Afronden en ondertekenen
script-action-approver = Goedkeuren
script-action-viewer = Markeren als bekeken
script-action-assistant = Voorbereiding afronden

## Veldlabels als de afzender er geen gaf.
script-field-signature = Hier ondertekenen
script-field-initials = Initialen
script-field-name = Naam
script-field-email = E-mail
script-field-date = Datum (ingevuld bij afronden)
script-field-text = Tekst
script-field-number = Getal
script-field-radio = Kies er één
script-field-checkbox = Aanvinken
script-field-select = Kies
script-field-for = { $label } (voor { $name })
script-field-filled = { $name } (ingevuld)
script-field-required = { $name } (verplicht)
script-your-signature = { $label }: uw handtekening

## De pagina en de balk.
script-sent-by = Verstuurd door { $name } ({ $email })
script-page = Pagina { $n }
script-page-of = Pagina { $n } van { $total }
script-progress-region = Uw voortgang en acties
script-progress = Verplichte velden ingevuld: { $done } van { $total }
script-next-field = Volgend veld
script-reject = Afwijzen…

## Dialoogvensters.
script-save = Opslaan
script-cancel = Annuleren
script-choose = Kies…
script-pad = Handtekeningvak: teken met de muis of uw vinger, of gebruik de getypte handtekening hieronder
script-clear = Wissen
script-clear-field = Dit veld leegmaken
script-or-type = Of typ hem
script-your-initials = Uw initialen
script-draw-or-type = Teken of typ eerst uw handtekening.
script-reject-title = Dit document afwijzen
script-reject-why = Waarom wijst u het af? De afzender ziet deze reden.
script-reject-button = Afwijzen
script-rejected = U hebt dit document afgewezen. De afzender is op de hoogte gebracht.
script-done-wait = Dank u wel, u bent klaar. U krijgt het ondertekende document per e-mail zodra iedereen heeft ondertekend.
script-done-sealing = Dank u wel: iedereen heeft ondertekend. De ondertekende versie wordt gemaakt…
script-done-complete = Iedereen heeft ondertekend: dit document is voltooid.
script-download = Ondertekende versie downloaden
script-done-sealing-slow = De ondertekende versie duurt langer dan gewoonlijk. U krijgt haar per e-mail; u kunt deze pagina ook later opnieuw laden om haar te downloaden.

## Authenticatie van de ontvanger.
script-asked-totp = een zescijferige code, uit uw authenticator-app of per e-mail
script-asked-passkey = uw passkey
script-asked-password = opnieuw het wachtwoord van uw Docket-account
script-setup-passkey-what = een passkey
script-setup-passkey-label = Passkey toevoegen
script-setup-totp-label = Authenticator-app instellen
script-setup-passkey-thing = passkey
script-auth-wrong-account = U bent ingelogd als { $other }, maar dit document is voor { $email }.
script-auth-sign-in = Dit document vraagt u in te loggen bij uw Docket-account voor { $email } voordat u het invult.
script-auth-also-asks = Als u klaar bent, vraagt het ook om { $asked }.
script-auth-sign-in-as = Inloggen als { $email }
script-auth-no-account = Nog geen account? We sturen u een link om er een aan te maken.
script-auth-create-account = Account aanmaken
script-auth-missing = Ingelogd als { $account }. Om te ondertekenen vraagt dit document om { $asked }, en uw account heeft nog geen { $thing }.
script-auth-missing-how = Stel het in op uw accountpagina: dat duurt een paar minuten en brengt u hier terug. Wat u intussen invult, blijft bewaard. U kunt het document ook zonder afwijzen.
script-auth-will-ask = Ingelogd als { $account }. Als u klaar bent, wordt gevraagd om { $asked }.
script-auth-no-app = Geen authenticator-app? Druk bij het afronden op “E-mail mij een code”: de code komt naar { $email }. Of stel nu een app in.
script-auth-signed-in = Ingelogd als { $account }.
script-totp-title = Bevestigen met een code
script-totp-label = Zescijferige code
script-totp-hint = De code die uw authenticator-app nu voor Docket toont, of een code die we u e-mailen.
script-code-hint-email = Vraag hem per e-mail aan: hij gaat naar { $email } en werkt 10 minuten.
script-code-email = E-mail mij een code
script-code-sent = We hebben een code naar { $email } gestuurd. Hij werkt één keer, gedurende 10 minuten.
script-code-wait = Er is net een code verstuurd: kijk in uw e-mail, of vraag over een minuut opnieuw.
script-password-title = Bevestigen met uw wachtwoord
script-password-label = Voer het wachtwoord van { $email } in om te bevestigen dat u het bent.

## Als een verzoek mislukt.
script-failed = Dat is niet gelukt (HTTP { $status }). Laad de pagina opnieuw en probeer het nog eens.
