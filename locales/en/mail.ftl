# The e-mails a recipient gets, in the document's language. { $title } is the document's title.

## Every message.
mail-hello = Hello,
mail-hello-name = Hello { $name },
mail-sent-by = Sent by Docket.
mail-open-link = Or open this link:
mail-personal = This link is personal: do not forward it.
mail-on-behalf = { $member } on behalf of { $team }

## A request to act on a document. { $action } is one of the verbs below.
mail-request-subject-sign = { $sender } invited you to sign "{ $title }"
mail-request-subject-approve = { $sender } invited you to approve "{ $title }"
mail-request-subject-view = { $sender } invited you to view "{ $title }"
mail-request-subject-prepare = { $sender } invited you to prepare "{ $title }"
mail-request-sign = { $sender } has invited you to sign the document "{ $title }".
mail-request-approve = { $sender } has invited you to approve the document "{ $title }".
mail-request-view = { $sender } has invited you to view the document "{ $title }".
mail-request-prepare = { $sender } has invited you to prepare the document "{ $title }".
mail-request-button-sign = Sign the document
mail-request-button-approve = Review and approve
mail-request-button-view = View the document
mail-request-button-prepare = Prepare the document
mail-request-message = Message from { $sender }:
mail-request-deadline = Please finish by { $date }: after that the link no longer works.
mail-reminder-subject = Reminder: { $subject }

## A link to create an account, asked for on a signing page.
mail-invite-subject = Create your Docket account to open "{ $title }"
mail-invite-body = { $sender } sent you "{ $title }" and asks you to sign in to a Docket account before you act on it. Follow this link to create your account for { $email }: you choose a password there, then go on to the document.
mail-invite-button = Create your account
mail-invite-expiry = The link works once, for { $minutes } minutes. If you did not ask for it, ignore this message.

## A code to finish, e-mailed on request from a signing page.
mail-code-subject = Your code for "{ $title }"
mail-code-body = Enter this code on the signing page of "{ $title }" to finish:
mail-code-expiry = The code works once, for { $minutes } minutes. If you did not ask for it, someone who can sign in to your Docket account may be acting on this document: change your password.

## The document is complete.
mail-completed-subject = Completed: "{ $title }"
mail-completed-body = Everyone has signed "{ $title }". The signed PDF is attached.

## Someone rejected the document.
mail-rejected-subject = Rejected: "{ $title }"
mail-rejected-body = { $by } has rejected the document "{ $title }". It will not be completed.
mail-rejected-reason = Reason:

## The sender cancelled the document.
mail-cancelled-subject = Cancelled: "{ $title }"
mail-cancelled-body = { $sender } has cancelled the document "{ $title }". You no longer need to act on it, and its signing link no longer works.
