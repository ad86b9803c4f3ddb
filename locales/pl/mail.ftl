# Wiadomości e-mail, które otrzymuje odbiorca, w języku dokumentu.

## Każda wiadomość.
mail-hello = Dzień dobry,
mail-hello-name = Dzień dobry { $name },
mail-sent-by = Wysłano przez Docket.
mail-open-link = Lub otwórz ten link:
mail-personal = Ten link jest osobisty: nie przekazuj go dalej.
mail-on-behalf = { $member } w imieniu { $team }

## Prośba o działanie w sprawie dokumentu.
mail-request-subject-sign = { $sender } prosi o podpisanie „{ $title }”
mail-request-subject-approve = { $sender } prosi o zatwierdzenie „{ $title }”
mail-request-subject-view = { $sender } prosi o zapoznanie się z „{ $title }”
mail-request-subject-prepare = { $sender } prosi o przygotowanie „{ $title }”
mail-request-sign = { $sender } prosi o podpisanie dokumentu „{ $title }”.
mail-request-approve = { $sender } prosi o zatwierdzenie dokumentu „{ $title }”.
mail-request-view = { $sender } prosi o zapoznanie się z dokumentem „{ $title }”.
mail-request-prepare = { $sender } prosi o przygotowanie dokumentu „{ $title }”.
mail-request-button-sign = Podpisz dokument
mail-request-button-approve = Przejrzyj i zatwierdź
mail-request-button-view = Zobacz dokument
mail-request-button-prepare = Przygotuj dokument
mail-request-message = Wiadomość od { $sender }:
mail-request-deadline = Dokończ do { $date }: potem link przestanie działać.
mail-reminder-subject = Przypomnienie: { $subject }

## Link do założenia konta.
mail-invite-subject = Załóż konto Docket, aby otworzyć „{ $title }”
mail-invite-body = { $sender } wysłał(a) Ci „{ $title }” i prosi o zalogowanie się do konta Docket, zanim coś z nim zrobisz. Otwórz ten link, aby założyć konto dla { $email }: wybierzesz tam hasło, a potem przejdziesz do dokumentu.
mail-invite-button = Załóż konto
mail-invite-expiry = Link działa jeden raz, przez { $minutes } min. Jeśli o niego nie prosiłeś(-aś), zignoruj tę wiadomość.

## Kod do zakończenia, wysłany e-mailem na prośbę ze strony podpisywania.
mail-code-subject = Twój kod do „{ $title }”
mail-code-body = Wpisz ten kod na stronie podpisywania „{ $title }”, aby zakończyć:
mail-code-expiry = Kod działa jeden raz, przez { $minutes } min. Jeśli o niego nie prosiłeś(-aś), ktoś, kto może zalogować się na Twoje konto Docket, może działać na tym dokumencie: zmień hasło.

## Dokument jest ukończony.
mail-completed-subject = Ukończono: „{ $title }”
mail-completed-body = Wszyscy podpisali „{ $title }”. Podpisany plik PDF jest w załączniku.

## Ktoś odrzucił dokument.
mail-rejected-subject = Odrzucono: „{ $title }”
mail-rejected-body = { $by } odrzucił(a) dokument „{ $title }”. Nie zostanie on ukończony.
mail-rejected-reason = Powód:

## Nadawca anulował dokument.
mail-cancelled-subject = Anulowano: „{ $title }”
mail-cancelled-body = { $sender } anulował(a) dokument „{ $title }”. Nie musisz już nic robić, a link do podpisu przestał działać.
