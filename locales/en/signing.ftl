# The pages a recipient sees: the signing page's frame, the way in to a document that asks for
# a Docket account, the pages of a link with nothing left to do, and a template's direct link.

## The frame of every page.
page-skip = Skip to main content

## The signing page (before its script fills it in).
sign-attachments = Attachments
sign-attachment-new-tab = Each link opens in a new tab; the site it goes to is written beside it.
sign-loading = Loading the document…
sign-needs-script = Signing needs JavaScript; please turn it on for this page.

## A link with nothing left to do.
sign-cancelled = This document was cancelled by its sender. There is nothing left to do.
sign-completed = Everyone has finished: this document is complete. The signed copy was sent by e-mail.
sign-completed-download = Everyone has finished: this document is complete.
sign-rejected = This document was rejected and can no longer be signed.
sign-expired = Your time to act on this document ended on { $date }. Ask the sender to send it to you again; the link then works for a new period.

## A document that asks for a Docket account, to a visitor not signed in as its recipient.
gate-sent-by = Sent by { $name } ({ $email })
gate-sign-in = This document asks you to sign in to your Docket account for { $email } before you can see it.
gate-also-asks = When you finish, it will also ask for { $asked }.
gate-asked-totp = a six-digit code, from your authenticator app or sent to you by e-mail
gate-asked-passkey = your passkey
gate-asked-password = your Docket account password again
gate-wrong-account = You are signed in as { $other }. Sign out, then sign in as { $email }.
gate-sign-out = Sign out
gate-sign-in-button = Sign in
gate-create-account = Create an account
gate-create-hint = No Docket account yet? “Create an account” e-mails { $email } a link to create one.

## A template's direct link.
direct-asks = { $name } ({ $email }) asks you to fill in and sign this document.
direct-asks-pages = { $name } ({ $email }) asks you to fill in and sign this document (pages: { $pages }).
direct-step-you = Give your name and e-mail address here.
direct-step-sign = Fill in and sign the document on the next page.
direct-step-done = You get the signed PDF by e-mail.
direct-step-then = It then goes to { $people }; you get the signed PDF by e-mail once everyone has signed.
direct-and = { $first } and { $last }
direct-name = Your full name
direct-email = Your e-mail address
direct-email-hint = The signed PDF is sent here.
direct-continue = Continue to the document
direct-recorded = Your name, address and where you sign from are recorded in the document's audit log and shared with { $name }.
direct-expired = The form expired. Please press the button again.
direct-bad-name = Give your full name (at most 200 characters).
direct-bad-email = Give a valid e-mail address.

## A signing page in another site's frame (embedded).
embed-open-window = Open it in a new window
