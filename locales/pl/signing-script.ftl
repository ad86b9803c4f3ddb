# Co skrypty strony podpisywania mówią odbiorcy. Zmienne są zwykłymi symbolami zastępczymi,
# które wypełnia skrypt.

## Wiersz stanu.
script-status-cc = Kopię tego dokumentu otrzymasz, gdy wszyscy go podpiszą.
script-status-finished = Gotowe. Dziękujemy.
script-status-not-your-turn = To jeszcze nie Twoja kolej: dostaniesz e-mail, gdy nadejdzie.
script-status-sign-out-first = Wyloguj się, a potem zaloguj jako { $email }, aby wypełnić ten dokument.
script-status-sign-in-first = Możesz już przeczytać dokument. Aby go wypełnić, najpierw zaloguj się jako { $email }.
script-status-assistant = Wypełnij, co możesz, dla kolejnych odbiorców, a potem naciśnij „{ $action }”.
script-status-fields-left = Puste pola wymagane: { $count }. „Następne pole” prowadzi do każdego z nich; potem naciśnij „{ $action }”.
script-status-fields-left-setup = Puste pola wymagane: { $count }. „Następne pole” prowadzi do każdego z nich; potem skonfiguruj: { $what }, aby podpisać.
script-status-setup = Wszystkie wymagane pola są wypełnione. Aby podpisać, najpierw skonfiguruj: { $what } („{ $label }”), albo odrzuć dokument.
script-status-read = Przeczytaj dokument, a potem naciśnij „{ $action }”.
script-status-ready = Wszystkie wymagane pola są wypełnione. Sprawdź dokument, a potem naciśnij „{ $action }”.

## Przyciski kończące, według roli.
script-action-signer = Zakończ i podpisz
script-action-approver = Zatwierdź
script-action-viewer = Oznacz jako przejrzany
script-action-assistant = Zakończ przygotowanie

## Etykiety pól, gdy nadawca ich nie podał.
script-field-signature = Podpisz tutaj
script-field-initials = Inicjały
script-field-name = Imię i nazwisko
script-field-email = E-mail
script-field-date = Data (wpisywana po zakończeniu)
script-field-text = Tekst
script-field-number = Liczba
script-field-radio = Wybierz jedną opcję
script-field-checkbox = Zaznacz
script-field-select = Wybierz
script-field-for = { $label } (dla { $name })
script-field-filled = { $name } (wypełnione)
script-field-required = { $name } (wymagane)
script-your-signature = { $label }: Twój podpis

## Strona i jej pasek.
script-sent-by = Wysłane przez { $name } ({ $email })
script-page = Strona { $n }
script-page-of = Strona { $n } z { $total }
script-progress-region = Twoje postępy i działania
script-progress = Wypełnione pola wymagane: { $done } z { $total }
script-next-field = Następne pole
script-reject = Odrzuć…

## Okna dialogowe.
script-save = Zapisz
script-cancel = Anuluj
script-choose = Wybierz…
script-pad = Pole podpisu: narysuj podpis myszą lub palcem albo użyj wpisanego podpisu poniżej
script-clear = Wyczyść
script-clear-field = Wyczyść to pole
script-or-type = Lub wpisz go
script-your-initials = Twoje inicjały
script-draw-or-type = Najpierw narysuj lub wpisz podpis.
script-reject-title = Odrzuć ten dokument
script-reject-why = Dlaczego go odrzucasz? Nadawca zobaczy ten powód.
script-reject-button = Odrzuć
script-rejected = Odrzucono ten dokument. Nadawca został powiadomiony.
script-done-wait = Dziękujemy, gotowe. Podpisany dokument otrzymasz e-mailem, gdy wszyscy go podpiszą.
script-done-sealing = Dziękujemy: wszyscy podpisali. Trwa przygotowywanie podpisanej kopii…
script-done-complete = Wszyscy podpisali: dokument jest ukończony.
script-download = Pobierz podpisaną kopię
script-done-sealing-slow = Przygotowanie podpisanej kopii trwa dłużej niż zwykle. Otrzymasz ją e-mailem; możesz też później odświeżyć tę stronę, aby ją pobrać.

## Uwierzytelnianie odbiorcy.
script-asked-totp = sześciocyfrowy kod z aplikacji uwierzytelniającej lub wysłany e-mailem
script-asked-passkey = klucz dostępu
script-asked-password = ponowne podanie hasła do konta Docket
script-setup-passkey-what = klucz dostępu
script-setup-passkey-label = Dodaj klucz dostępu
script-setup-totp-label = Skonfiguruj aplikację uwierzytelniającą
script-setup-passkey-thing = klucza dostępu
script-auth-wrong-account = Jesteś zalogowany(-a) jako { $other }, ale ten dokument jest dla { $email }.
script-auth-sign-in = Ten dokument wymaga zalogowania się do konta Docket dla { $email }, zanim go wypełnisz.
script-auth-also-asks = Na końcu poprosi też o: { $asked }.
script-auth-sign-in-as = Zaloguj się jako { $email }
script-auth-no-account = Nie masz jeszcze konta? Wyślemy Ci link do jego założenia.
script-auth-create-account = Załóż konto
script-auth-missing = Zalogowano jako { $account }. Aby podpisać, ten dokument wymaga: { $asked }, a Twoje konto nie ma jeszcze { $thing }.
script-auth-missing-how = Skonfiguruj to na stronie konta: zajmie to kilka minut i wrócisz tutaj. To, co wypełnisz w międzyczasie, zostanie zachowane. Możesz też odrzucić dokument bez tego.
script-auth-will-ask = Zalogowano jako { $account }. Na końcu pojawi się prośba o: { $asked }.
script-auth-no-app = Nie masz aplikacji uwierzytelniającej? Na końcu naciśnij „Wyślij mi kod e-mailem”: kod przyjdzie na { $email }. Albo skonfiguruj aplikację teraz.
script-auth-signed-in = Zalogowano jako { $account }.
script-totp-title = Potwierdź kodem
script-totp-label = Sześciocyfrowy kod
script-totp-hint = Kod, który aplikacja uwierzytelniająca pokazuje teraz dla Docket, albo kod wysłany e-mailem.
script-code-hint-email = Poproś o niego e-mailem: trafi na { $email } i działa przez 10 minut.
script-code-email = Wyślij mi kod e-mailem
script-code-sent = Wysłaliśmy kod na { $email }. Działa jeden raz, przez 10 minut.
script-code-wait = Kod został właśnie wysłany: sprawdź pocztę albo poproś ponownie za minutę.
script-password-title = Potwierdź hasłem
script-password-label = Wpisz hasło do { $email }, aby potwierdzić, że to Ty.

## Gdy żądanie się nie powiedzie.
script-failed = To się nie udało (HTTP { $status }). Odśwież stronę i spróbuj ponownie.
