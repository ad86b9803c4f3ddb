# What the signing page's scripts (assets/js/sign.js, sign-auth.js, sign-ui.js) say to the
# recipient. Every message here is sent to the page; a { $name } placeholder is filled in by
# the script, so these messages use variables only as plain placeholders (no selectors).

## The status line: what to do now.
script-status-cc = You receive a copy of this document once everyone has signed.
script-status-finished = You have finished. Thank you.
script-status-not-your-turn = It is not your turn yet: you will get an e-mail when it is.
script-status-sign-out-first = Sign out, then sign in as { $email } to fill in this document.
script-status-sign-in-first = You can read the document now. To fill it in, sign in as { $email } first.
script-status-assistant = Fill in what you can for the recipients after you, then press “{ $action }”.
script-status-fields-left = Required fields still empty: { $count }. “Next field” takes you to each; then press “{ $action }”.
script-status-fields-left-setup = Required fields still empty: { $count }. “Next field” takes you to each; then set up { $what } to sign.
script-status-setup = Everything required is filled in. To sign, set up { $what } first (“{ $label }”), or reject the document.
script-status-read = Read the document, then press “{ $action }”.
script-status-ready = Everything required is filled in. Check the document, then press “{ $action }”.

## The finishing buttons, by the recipient's role.
script-action-signer = Finish and sign
script-action-approver = Approve
script-action-viewer = Mark as viewed
script-action-assistant = Finish preparing

## Field labels when the sender gave none.
script-field-signature = Sign here
script-field-initials = Initials
script-field-name = Name
script-field-email = E-mail
script-field-date = Date (filled when you finish)
script-field-text = Text
script-field-number = Number
script-field-radio = Choose one
script-field-checkbox = Tick
script-field-select = Choose
script-field-for = { $label } (for { $name })
script-field-filled = { $name } (filled)
script-field-required = { $name } (required)
script-your-signature = { $label }: your signature

## The page and its bar.
script-sent-by = Sent by { $name } ({ $email })
script-page = Page { $n }
script-page-of = Page { $n } of { $total }
script-progress-region = Your progress and actions
script-progress = Required fields filled: { $done } of { $total }
script-next-field = Next field
script-reject = Reject…

## Dialogs.
script-save = Save
script-cancel = Cancel
script-choose = Choose…
script-pad = Signature pad: draw with the mouse or a finger, or use the typed signature below
script-clear = Clear
script-clear-field = Empty this field
script-or-type = Or type it
script-your-initials = Your initials
script-draw-or-type = Draw or type your signature first.
script-reject-title = Reject this document
script-reject-why = Why are you rejecting it? The sender will see this.
script-reject-button = Reject
script-rejected = You rejected this document. The sender has been told.
script-done-wait = Thank you: you have finished. You will receive the signed document by e-mail once everyone has signed.
script-done-sealing = Thank you: everyone has signed. The signed copy is being prepared…
script-done-complete = Everyone has signed: this document is complete.
script-download = Download the signed copy
script-done-sealing-slow = The signed copy is taking longer than usual. It will be e-mailed to you; you can also reload this page later to download it.

## Recipient authentication (sign-auth.js).
script-asked-totp = a six-digit code, from your authenticator app or sent to you by e-mail
script-asked-passkey = your passkey
script-asked-password = your Docket account password again
script-setup-passkey-what = a passkey
script-setup-passkey-label = Add a passkey
script-setup-totp-label = Set up an authenticator app
script-setup-passkey-thing = passkey
script-auth-wrong-account = You are signed in as { $other }, but this document is for { $email }.
script-auth-sign-in = This document asks you to sign in to your Docket account for { $email } before you fill it in.
script-auth-also-asks = When you finish, it will also ask for { $asked }.
script-auth-sign-in-as = Sign in as { $email }
script-auth-no-account = No account yet? We e-mail you a link to create one.
script-auth-create-account = Create an account
script-auth-missing = Signed in as { $account }. To sign, this document asks for { $asked }, and your account has no { $thing } yet.
script-auth-missing-how = Set one up on your account page: it takes a few minutes, and brings you back here. What you fill in meanwhile is kept. You can also reject the document without it.
script-auth-will-ask = Signed in as { $account }. When you finish, you will be asked for { $asked }.
script-auth-no-app = No authenticator app? When you finish, press “E-mail me a code”: the code comes to { $email }. Or set up an app now.
script-auth-signed-in = Signed in as { $account }.
script-totp-title = Confirm with a code
script-totp-label = Six-digit code
script-totp-hint = The code your authenticator app shows now for Docket, or one we e-mail you.
script-code-hint-email = Ask for it by e-mail: it goes to { $email } and works for 10 minutes.
script-code-email = E-mail me a code
script-code-sent = We sent a code to { $email }. It works once, for 10 minutes.
script-code-wait = A code was sent a moment ago: check your mail, or ask again in a minute.
script-password-title = Confirm with your password
script-password-label = Enter the password of { $email } to confirm it is you.

## When a request fails.
script-failed = That did not work (HTTP { $status }). Reload the page and try again.
