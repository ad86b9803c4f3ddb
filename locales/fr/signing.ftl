# Les pages qu'un destinataire voit.

## Le cadre de chaque page.
page-skip = Aller au contenu principal

## La page de signature.
sign-attachments = Pièces jointes
sign-attachment-new-tab = Chaque lien s’ouvre dans un nouvel onglet ; le site vers lequel il mène est indiqué à côté.
sign-loading = Chargement du document…
sign-needs-script = La signature nécessite JavaScript ; veuillez l'activer pour cette page.

## Un lien où il ne reste rien à faire.
sign-cancelled = Ce document a été annulé par son expéditeur. Il ne reste rien à faire.
sign-completed = Tout le monde a terminé : ce document est finalisé. La copie signée a été envoyée par e-mail.
sign-completed-download = Tout le monde a terminé : ce document est finalisé.
sign-rejected = Ce document a été refusé et ne peut plus être signé.
sign-expired = Le délai pour agir sur ce document a pris fin le { $date }. Demandez à l’expéditeur de vous le renvoyer ; le lien fonctionnera alors pour un nouveau délai.

## Un document qui demande un compte Docket.
gate-sent-by = Envoyé par { $name } ({ $email })
gate-sign-in = Ce document vous demande de vous connecter à votre compte Docket pour { $email } avant de pouvoir le voir.
gate-also-asks = Lorsque vous terminerez, il demandera aussi { $asked }.
gate-asked-totp = un code à six chiffres, de votre application d'authentification ou reçu par e-mail
gate-asked-passkey = votre clé d'accès
gate-asked-password = de nouveau le mot de passe de votre compte Docket
gate-wrong-account = Vous êtes connecté en tant que { $other }. Déconnectez-vous, puis connectez-vous en tant que { $email }.
gate-sign-out = Se déconnecter
gate-sign-in-button = Se connecter
gate-create-account = Créer un compte
gate-create-hint = Pas encore de compte Docket ? « Créer un compte » envoie à { $email } un lien pour en créer un.

## Le lien direct d'un modèle.
direct-asks = { $name } ({ $email }) vous demande de remplir et de signer ce document.
direct-asks-pages = { $name } ({ $email }) vous demande de remplir et de signer ce document (pages : { $pages }).
direct-step-you = Indiquez ici votre nom et votre adresse e-mail.
direct-step-sign = Remplissez et signez le document sur la page suivante.
direct-step-done = Vous recevez le PDF signé par e-mail.
direct-step-then = Il est ensuite transmis à { $people } ; vous recevez le PDF signé par e-mail une fois que tout le monde a signé.
direct-and = { $first } et { $last }
direct-name = Votre nom complet
direct-email = Votre adresse e-mail
direct-email-hint = Le PDF signé est envoyé ici.
direct-continue = Continuer vers le document
direct-recorded = Votre nom, votre adresse et le lieu d'où vous signez sont consignés dans le journal d'audit du document et partagés avec { $name }.
direct-expired = Le formulaire a expiré. Veuillez appuyer de nouveau sur le bouton.
direct-bad-name = Indiquez votre nom complet (200 caractères au plus).
direct-bad-email = Indiquez une adresse e-mail valide.

## A signing page in another site's frame (embedded).
embed-open-window = L’ouvrir dans une nouvelle fenêtre
