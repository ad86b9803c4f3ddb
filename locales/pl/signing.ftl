# Strony, które widzi odbiorca.

## Ramka każdej strony.
page-skip = Przejdź do treści głównej

## Strona podpisywania.
sign-attachments = Załączniki
sign-attachment-new-tab = Każdy link otwiera się w nowej karcie; obok podano witrynę, do której prowadzi.
sign-loading = Wczytywanie dokumentu…
sign-needs-script = Do podpisania potrzebny jest JavaScript; włącz go dla tej strony.

## Link, przy którym nie ma już nic do zrobienia.
sign-cancelled = Nadawca anulował ten dokument. Nie ma już nic do zrobienia.
sign-completed = Wszyscy skończyli: dokument jest ukończony. Podpisana kopia została wysłana e-mailem.
sign-completed-download = Wszyscy skończyli: dokument jest ukończony.
sign-rejected = Ten dokument został odrzucony i nie można go już podpisać.
sign-expired = Twój termin na działanie w tym dokumencie upłynął { $date }. Poproś nadawcę o ponowne wysłanie; link zadziała wtedy przez nowy okres.

## Dokument, który wymaga konta Docket.
gate-sent-by = Wysłane przez { $name } ({ $email })
gate-sign-in = Ten dokument wymaga zalogowania się do konta Docket dla { $email }, zanim będzie można go zobaczyć.
gate-also-asks = Na końcu poprosi też o: { $asked }.
gate-asked-totp = sześciocyfrowy kod z aplikacji uwierzytelniającej lub wysłany e-mailem
gate-asked-passkey = klucz dostępu
gate-asked-password = ponowne podanie hasła do konta Docket
gate-wrong-account = Jesteś zalogowany(-a) jako { $other }. Wyloguj się, a potem zaloguj jako { $email }.
gate-sign-out = Wyloguj się
gate-sign-in-button = Zaloguj się
gate-create-account = Załóż konto
gate-create-hint = Nie masz jeszcze konta Docket? „Załóż konto” wysyła na { $email } link do jego założenia.

## Bezpośredni link szablonu.
direct-asks = { $name } ({ $email }) prosi o wypełnienie i podpisanie tego dokumentu.
direct-asks-pages = { $name } ({ $email }) prosi o wypełnienie i podpisanie tego dokumentu (strony: { $pages }).
direct-step-you = Podaj tutaj swoje imię i nazwisko oraz adres e-mail.
direct-step-sign = Wypełnij i podpisz dokument na następnej stronie.
direct-step-done = Podpisany plik PDF otrzymasz e-mailem.
direct-step-then = Następnie trafi do: { $people }; podpisany plik PDF otrzymasz e-mailem, gdy wszyscy podpiszą.
direct-and = { $first } i { $last }
direct-name = Imię i nazwisko
direct-email = Adres e-mail
direct-email-hint = Tutaj zostanie wysłany podpisany plik PDF.
direct-continue = Przejdź do dokumentu
direct-recorded = Twoje imię i nazwisko, adres i miejsce, z którego podpisujesz, są zapisywane w dzienniku audytu dokumentu i udostępniane { $name }.
direct-expired = Formularz wygasł. Naciśnij przycisk ponownie.
direct-bad-name = Podaj imię i nazwisko (najwyżej 200 znaków).
direct-bad-email = Podaj prawidłowy adres e-mail.

## A signing page in another site's frame (embedded).
embed-open-window = Otwórz w nowym oknie
