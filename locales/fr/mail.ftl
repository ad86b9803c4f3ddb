# Les e-mails qu'un destinataire reçoit, dans la langue du document.

## Chaque message.
mail-hello = Bonjour,
mail-hello-name = Bonjour { $name },
mail-sent-by = Envoyé par Docket.
mail-open-link = Ou ouvrez ce lien :
mail-personal = Ce lien est personnel : ne le transférez pas.
mail-on-behalf = { $member } pour le compte de { $team }

## Une demande d'agir sur un document.
mail-request-subject-sign = { $sender } vous invite à signer « { $title } »
mail-request-subject-approve = { $sender } vous invite à approuver « { $title } »
mail-request-subject-view = { $sender } vous invite à consulter « { $title } »
mail-request-subject-prepare = { $sender } vous invite à préparer « { $title } »
mail-request-sign = { $sender } vous invite à signer le document « { $title } ».
mail-request-approve = { $sender } vous invite à approuver le document « { $title } ».
mail-request-view = { $sender } vous invite à consulter le document « { $title } ».
mail-request-prepare = { $sender } vous invite à préparer le document « { $title } ».
mail-request-button-sign = Signer le document
mail-request-button-approve = Relire et approuver
mail-request-button-view = Voir le document
mail-request-button-prepare = Préparer le document
mail-request-message = Message de { $sender } :
mail-request-deadline = Merci de terminer avant le { $date } : ensuite, le lien ne fonctionnera plus.
mail-reminder-subject = Rappel : { $subject }

## Un lien pour créer un compte.
mail-invite-subject = Créez votre compte Docket pour ouvrir « { $title } »
mail-invite-body = { $sender } vous a envoyé « { $title } » et vous demande de vous connecter à un compte Docket avant d'agir. Suivez ce lien pour créer votre compte pour { $email } : vous y choisissez un mot de passe, puis vous accédez au document.
mail-invite-button = Créer votre compte
mail-invite-expiry = Le lien fonctionne une seule fois, pendant { $minutes } minutes. Si vous ne l'avez pas demandé, ignorez ce message.

## Un code pour terminer, demandé par e-mail depuis une page de signature.
mail-code-subject = Votre code pour « { $title } »
mail-code-body = Saisissez ce code sur la page de signature de « { $title } » pour terminer :
mail-code-expiry = Le code fonctionne une seule fois, pendant { $minutes } minutes. Si vous ne l'avez pas demandé, quelqu'un qui peut se connecter à votre compte Docket agit peut-être sur ce document : changez votre mot de passe.

## Le document est terminé.
mail-completed-subject = Terminé : « { $title } »
mail-completed-body = Tout le monde a signé « { $title } ». Le PDF signé est en pièce jointe.

## Quelqu'un a refusé le document.
mail-rejected-subject = Refusé : « { $title } »
mail-rejected-body = { $by } a refusé le document « { $title } ». Il ne sera pas finalisé.
mail-rejected-reason = Motif :

## L'expéditeur a annulé le document.
mail-cancelled-subject = Annulé : « { $title } »
mail-cancelled-body = { $sender } a annulé le document « { $title } ». Vous n'avez plus rien à faire, et son lien de signature ne fonctionne plus.
