# Ce que les scripts de la page de signature disent au destinataire. Les variables ne sont que
# de simples emplacements remplis par le script.

## La ligne d'état.
script-status-cc = Vous recevrez une copie de ce document une fois que tout le monde aura signé.
script-status-finished = Vous avez terminé. Merci.
script-status-not-your-turn = Ce n'est pas encore votre tour : vous recevrez un e-mail le moment venu.
script-status-sign-out-first = Déconnectez-vous, puis connectez-vous en tant que { $email } pour remplir ce document.
script-status-sign-in-first = Vous pouvez lire le document dès maintenant. Pour le remplir, connectez-vous d'abord en tant que { $email }.
script-status-assistant = Remplissez ce que vous pouvez pour les destinataires suivants, puis appuyez sur « { $action } ».
script-status-fields-left = Champs obligatoires encore vides : { $count }. « Champ suivant » vous mène à chacun ; appuyez ensuite sur « { $action } ».
script-status-fields-left-setup = Champs obligatoires encore vides : { $count }. « Champ suivant » vous mène à chacun ; configurez ensuite { $what } pour signer.
script-status-setup = Tous les champs obligatoires sont remplis. Pour signer, configurez d'abord { $what } (« { $label } »), ou refusez le document.
script-status-read = Lisez le document, puis appuyez sur « { $action } ».
script-status-ready = Tous les champs obligatoires sont remplis. Vérifiez le document, puis appuyez sur « { $action } ».

## Les boutons pour terminer, selon le rôle.
script-action-signer = Terminer et signer
script-action-approver = Approuver
script-action-viewer = Marquer comme vu
script-action-assistant = Terminer la préparation

## Libellés des champs lorsque l'expéditeur n'en a pas donné.
script-field-signature = Signez ici
script-field-initials = Initiales
script-field-name = Nom
script-field-email = E-mail
script-field-date = Date (remplie lorsque vous terminez)
script-field-text = Texte
script-field-number = Nombre
script-field-radio = Choisissez une option
script-field-checkbox = Cochez
script-field-select = Choisissez
script-field-for = { $label } (pour { $name })
script-field-filled = { $name } (rempli)
script-field-required = { $name } (obligatoire)
script-your-signature = { $label } : votre signature

## La page et sa barre.
script-sent-by = Envoyé par { $name } ({ $email })
script-page = Page { $n }
script-page-of = Page { $n } sur { $total }
script-progress-region = Votre progression et vos actions
script-progress = Champs obligatoires remplis : { $done } sur { $total }
script-next-field = Champ suivant
script-reject = Refuser…

## Boîtes de dialogue.
script-save = Enregistrer
script-cancel = Annuler
script-choose = Choisissez…
script-pad = Zone de signature : dessinez avec la souris ou le doigt, ou utilisez la signature saisie ci-dessous
script-clear = Effacer
script-clear-field = Vider ce champ
script-or-type = Ou saisissez-la
script-your-initials = Vos initiales
script-draw-or-type = Dessinez ou saisissez d'abord votre signature.
script-reject-title = Refuser ce document
script-reject-why = Pourquoi le refusez-vous ? L'expéditeur verra ce motif.
script-reject-button = Refuser
script-rejected = Vous avez refusé ce document. L'expéditeur en a été informé.
script-done-wait = Merci, vous avez terminé. Vous recevrez le document signé par e-mail une fois que tout le monde aura signé.
script-done-sealing = Merci : tout le monde a signé. La copie signée est en préparation…
script-done-complete = Tout le monde a signé : ce document est finalisé.
script-download = Télécharger la copie signée
script-done-sealing-slow = La copie signée prend plus de temps que d'habitude. Elle vous sera envoyée par e-mail ; vous pouvez aussi recharger cette page plus tard pour la télécharger.

## Authentification du destinataire.
script-asked-totp = un code à six chiffres, de votre application d'authentification ou reçu par e-mail
script-asked-passkey = votre clé d'accès
script-asked-password = de nouveau le mot de passe de votre compte Docket
script-setup-passkey-what = une clé d'accès
script-setup-passkey-label = Ajouter une clé d'accès
script-setup-totp-label = Configurer une application d'authentification
script-setup-passkey-thing = clé d'accès
script-auth-wrong-account = Vous êtes connecté en tant que { $other }, mais ce document est destiné à { $email }.
script-auth-sign-in = Ce document vous demande de vous connecter à votre compte Docket pour { $email } avant de le remplir.
script-auth-also-asks = Lorsque vous terminerez, il demandera aussi { $asked }.
script-auth-sign-in-as = Se connecter en tant que { $email }
script-auth-no-account = Pas encore de compte ? Nous vous envoyons un lien pour en créer un.
script-auth-create-account = Créer un compte
script-auth-missing = Connecté en tant que { $account }. Pour signer, ce document demande { $asked }, et votre compte n'a pas encore de { $thing }.
script-auth-missing-how = Configurez-le sur la page de votre compte : cela prend quelques minutes et vous ramène ici. Ce que vous remplissez entre-temps est conservé. Vous pouvez aussi refuser le document sans cela.
script-auth-will-ask = Connecté en tant que { $account }. Lorsque vous terminerez, { $asked } vous sera demandé.
script-auth-no-app = Pas d'application d'authentification ? En terminant, appuyez sur « M'envoyer un code par e-mail » : le code arrive à { $email }. Ou configurez une application maintenant.
script-auth-signed-in = Connecté en tant que { $account }.
script-totp-title = Confirmer avec un code
script-totp-label = Code à six chiffres
script-totp-hint = Le code que votre application d'authentification affiche maintenant pour Docket, ou celui que nous vous envoyons par e-mail.
script-code-hint-email = Demandez-le par e-mail : il arrive à { $email } et fonctionne 10 minutes.
script-code-email = M'envoyer un code par e-mail
script-code-sent = Nous avons envoyé un code à { $email }. Il fonctionne une fois, pendant 10 minutes.
script-code-wait = Un code vient d'être envoyé : consultez vos e-mails, ou redemandez-en un dans une minute.
script-password-title = Confirmer avec votre mot de passe
script-password-label = Saisissez le mot de passe de { $email } pour confirmer que c'est bien vous.

## Lorsqu'une requête échoue.
script-failed = Cela n'a pas fonctionné (HTTP { $status }). Rechargez la page et réessayez.
