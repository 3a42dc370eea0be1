// Every word of every notification, in each language messages are written in. Both catalogs have the same
// keys and every message the same `{placeholders}` (test/unit/notification-messages.test.ts checks both);
// `{name}` is filled in by the renderer (notifications/messages.ts). `{organization}` is the organization's
// sender display name. Quotes around titles are plain ASCII in both languages.

export const NOTIFICATION_LANGUAGES = ['en', 'he'] as const;
export type NotificationLanguage = (typeof NOTIFICATION_LANGUAGES)[number];

/** The recipient's language when messages exist in it; anything else (unknown, missing) is English. */
export function notificationLanguage(value: unknown): NotificationLanguage {
  return NOTIFICATION_LANGUAGES.find((language) => language === value) ?? 'en';
}

const en = {
  'email.greeting': 'Hello {name},',
  'email.linkHelp': 'If the button does not work, copy this address into your browser:',
  'email.personalLink': 'This link is personal: please do not forward this email.',
  'email.deadline': 'Please respond by {date}.',
  'email.footerDefault': 'Sent by {organization} with Sigil.',
  'email.envelopeId': 'Envelope ID: {id}',

  'button.sign': 'Review and sign',
  'button.fill': 'Fill in the document',
  'button.approve': 'Review and approve',
  'button.view': 'View the document',

  'invitation.subject.sign': '{organization} sent you "{title}" to sign',
  'invitation.subject.fill': '{organization} asks you to fill in "{title}"',
  'invitation.subject.approve': '{organization} asks you to approve "{title}"',
  'invitation.subject.view': '{organization} shared "{title}" with you',
  'invitation.intro.sign': '{organization} sent you the document "{title}" to review and sign.',
  'invitation.intro.fill': '{organization} asks you to fill in the document "{title}".',
  'invitation.intro.approve': '{organization} asks you to review and approve the document "{title}".',
  'invitation.intro.view': '{organization} shared the document "{title}" with you to review.',
  'invitation.short.sign': '{organization} sent you "{title}" to sign: {link}',
  'invitation.short.fill': '{organization} asks you to fill in "{title}": {link}',
  'invitation.short.approve': '{organization} asks you to approve "{title}": {link}',
  'invitation.short.view': '{organization} shared "{title}" with you: {link}',

  'reminder.subject.sign': 'Reminder: "{title}" is waiting for your signature',
  'reminder.subject.fill': 'Reminder: "{title}" is waiting for you to fill it in',
  'reminder.subject.approve': 'Reminder: "{title}" is waiting for your approval',
  'reminder.subject.view': 'Reminder: "{title}" is waiting for you to review it',
  'reminder.intro.sign':
    'A reminder from {organization}: the document "{title}" is still waiting for your signature.',
  'reminder.intro.fill':
    'A reminder from {organization}: the document "{title}" is still waiting for you to fill it in.',
  'reminder.intro.approve':
    'A reminder from {organization}: the document "{title}" is still waiting for your approval.',
  'reminder.intro.view':
    'A reminder from {organization}: the document "{title}" is still waiting for you to review it.',
  'reminder.short.sign': 'Reminder from {organization}: "{title}" is waiting for your signature: {link}',
  'reminder.short.fill': 'Reminder from {organization}: "{title}" is waiting for you to fill it in: {link}',
  'reminder.short.approve': 'Reminder from {organization}: "{title}" is waiting for your approval: {link}',
  'reminder.short.view': 'Reminder from {organization}: "{title}" is waiting for you to review it: {link}',

  'otp.subject': 'Your signing verification code',
  'otp.short':
    '{organization}: your signing verification code is {code}. It is valid for {minutes} minutes. Do not share it with anyone.',

  'completed.subject': '"{title}" is complete',
  'completed.intro':
    'Everyone has completed the document "{title}" that {organization} sent you. The signed document and its audit trail are ready to download.',
  'completed.button': 'Download the signed document',
  'completed.attached': 'The signed document is attached to this email.',
  'completed.tooLarge':
    'The signed document ({size}) is too large to attach to this email: download it with the link above.',
  'completed.short': '"{title}" from {organization} is complete. Download the signed document: {link}',

  'declined.subject': '{decliner} declined "{title}"',
  'declined.intro': '{decliner} declined "{title}". The envelope is closed: nobody else can act on it.',
  'declined.reason': 'Reason given: {reason}',
  'declined.short': '{decliner} declined "{title}". Reason: {reason}',

  'cancelled.subject': '"{title}" was cancelled',
  'cancelled.intro': 'The envelope "{title}" was cancelled. Its signing links no longer work.',
  'cancelled.reason': 'Reason: {reason}',
  'cancelled.short': '"{title}" from {organization} was cancelled.',

  'expiringSoon.subject': '"{title}" expires in {days} days',
  'expiringSoon.subject.one': '"{title}" expires tomorrow',
  'expiringSoon.intro':
    'The document "{title}" that {organization} sent you expires in {days} days, on {deadline}. After that it can no longer be completed.',
  'expiringSoon.intro.one':
    'The document "{title}" that {organization} sent you expires tomorrow, on {deadline}. After that it can no longer be completed.',
  'expiringSoon.short': '"{title}" from {organization} expires in {days} days: {link}',
  'expiringSoon.short.one': '"{title}" from {organization} expires tomorrow: {link}',

  'expired.subject': '"{title}" has expired',
  'expired.intro':
    'The deadline of the document "{title}" that {organization} sent you has passed. Its signing link no longer works; if it still needs to be completed, {organization} can extend it.',
  'expired.short': '"{title}" from {organization} has expired: its link no longer works.',

  'account.verifyEmail.subject': 'Confirm your email address for {organization} on Sigil',
  'account.verifyEmail.intro':
    'Welcome to Sigil. Confirm that {email} is your email address to finish setting up your account at {organization}.',
  'account.verifyEmail.button': 'Confirm my email address',
  'account.verifyEmail.note':
    'The link works for 48 hours. If you did not create this account, ignore this email: nothing happens without the link.',

  'account.resetPassword.subject': 'Reset your Sigil password',
  'account.resetPassword.intro':
    'We received a request to reset the password of your Sigil account ({email}) at {organization}.',
  'account.resetPassword.button': 'Choose a new password',
  'account.resetPassword.note':
    'The link works once, for one hour. If you did not ask for it, ignore this email: your password stays as it is.',

  'account.invite.subject': 'You are invited to join {organization} on Sigil',
  'account.invite.intro': '{organization} invited you ({email}) to join its team on Sigil.',
  'account.invite.invitedBy': 'Invited by {inviter}.',
  'account.invite.button': 'Accept the invitation',
  'account.invite.note': 'The invitation works for 7 days. If you did not expect it, ignore this email.',

  'account.mfaReset.subject': 'Your two-step verification was reset',
  'account.mfaReset.intro':
    'An administrator of {organization} reset the two-step verification of your Sigil account ({email}): your authenticator app, backup codes and passkeys were removed and you were signed out everywhere.',
  'account.mfaReset.button': 'Sign in',
  'account.mfaReset.note':
    'Sign in with your password and set up two-step verification again. If you did not ask for this, tell your administrator.',

  'account.accountUnlocked.subject': 'You can sign in to Sigil again',
  'account.accountUnlocked.intro':
    'Sigil support unlocked the sign-in of your account ({email}) at {organization}, which was locked after several wrong passwords.',
  'account.accountUnlocked.button': 'Sign in',
  'account.accountUnlocked.note':
    'If you have forgotten your password, choose "Forgot your password?" on the sign-in page. If you did not ask for this, tell your administrator.',

  'account.passwordChanged.subject': 'Your Sigil password was changed',
  'account.passwordChanged.intro':
    'The password of your Sigil account ({email}) at {organization} was changed, and every other session of the account was signed out.',
  'account.passwordChanged.button': 'Reset your password',
  'account.passwordChanged.note':
    'If you changed it, you need not do anything. If you did not, reset your password now and tell your administrator.',

  'account.emailChange.subject': 'Confirm your new email address for Sigil',
  'account.emailChange.intro':
    'You asked to use {email} for your Sigil account at {organization}. Confirm it, and you sign in with this address from then on.',
  'account.emailChange.button': 'Confirm the new address',
  'account.emailChange.note':
    'The link works once, for 24 hours. Until it is opened, your account keeps its current address. If you did not ask for this, ignore this email.',

  'account.emailChangeRequested.subject': 'A change of your Sigil email address was requested',
  'account.emailChangeRequested.intro':
    'Someone signed in to your Sigil account ({email}) at {organization} asked to change its email address. A confirmation link was sent to the new address; nothing changes until it is opened.',
  'account.emailChangeRequested.button': 'Reset your password',
  'account.emailChangeRequested.note':
    'If it was you, you need not do anything. If it was not, reset your password now: the request needed it.',

  'account.emailChanged.subject': 'Your Sigil email address was changed',
  'account.emailChanged.intro':
    'The email address of your Sigil account at {organization} is no longer {email}: the new address was confirmed, and you sign in with it from now on. Your other sessions were signed out.',
  'account.emailChanged.button': 'Sign in',
  'account.emailChanged.note':
    'If you did not make this change, tell your administrator at {organization} at once.',

  'account.registrationAttempt.subject': 'Someone tried to register with your email address',
  'account.registrationAttempt.intro':
    'Someone tried to create a new Sigil account with {email}, which already belongs to your account at {organization}. No new account was created.',
  'account.registrationAttempt.button': 'Sign in',
  'account.registrationAttempt.note':
    'If this was you, sign in with your existing account, or reset your password if you forgot it. If it was not you, you need not do anything.',

  'account.invitationAttempt.subject': '{organization} tried to invite you to Sigil',
  'account.invitationAttempt.intro':
    '{inviter} of {organization} invited {email} to join {organization} on Sigil. This address already belongs to your Sigil account in another organization, and an address can belong to one organization only, so the invitation cannot be accepted with it. Your account stays as it is.',
  'account.invitationAttempt.button': 'Sign in to your account',
  'account.invitationAttempt.note':
    'To join {organization}, ask them to invite another address of yours; or, if you are leaving your current organization, have its administrator delete your account there and ask {organization} to send the invitation again. If you did not expect this, you need not do anything.',

  'backoffice.code.subject': 'Your Sigil backoffice sign-in code',
  'backoffice.code.intro':
    'Your code to sign in to the Sigil backoffice is {code}. It works once, for {minutes} minutes.',
  'backoffice.code.note':
    'If you did not just sign in, someone knows your password: change it and tell another administrator.',
};

export type NotificationMessageKey = keyof typeof en;

const he: Record<NotificationMessageKey, string> = {
  'email.greeting': 'שלום {name},',
  'email.linkHelp': 'אם הכפתור אינו פועל, העתיקו את הכתובת הזו לדפדפן:',
  'email.personalLink': 'הקישור הזה אישי: נא לא להעביר את ההודעה הזו לאחרים.',
  'email.deadline': 'נא להשיב עד {date}.',
  'email.footerDefault': 'נשלח על ידי {organization} באמצעות Sigil.',
  'email.envelopeId': 'מזהה המעטפה: {id}',

  'button.sign': 'לעיון ולחתימה',
  'button.fill': 'למילוי המסמך',
  'button.approve': 'לעיון ולאישור',
  'button.view': 'לצפייה במסמך',

  'invitation.subject.sign': '{organization} שלחו לך את "{title}" לחתימה',
  'invitation.subject.fill': '{organization} מבקשים ממך למלא את "{title}"',
  'invitation.subject.approve': '{organization} מבקשים ממך לאשר את "{title}"',
  'invitation.subject.view': '{organization} שיתפו איתך את "{title}"',
  'invitation.intro.sign': '{organization} שלחו לך את המסמך "{title}" לעיון ולחתימה.',
  'invitation.intro.fill': '{organization} מבקשים ממך למלא את המסמך "{title}".',
  'invitation.intro.approve': '{organization} מבקשים ממך לעיין במסמך "{title}" ולאשר אותו.',
  'invitation.intro.view': '{organization} שיתפו איתך את המסמך "{title}" לעיון.',
  'invitation.short.sign': '{organization} שלחו לך את "{title}" לחתימה: {link}',
  'invitation.short.fill': '{organization} מבקשים ממך למלא את "{title}": {link}',
  'invitation.short.approve': '{organization} מבקשים ממך לאשר את "{title}": {link}',
  'invitation.short.view': '{organization} שיתפו איתך את "{title}": {link}',

  'reminder.subject.sign': 'תזכורת: "{title}" ממתין לחתימתך',
  'reminder.subject.fill': 'תזכורת: "{title}" ממתין למילוי שלך',
  'reminder.subject.approve': 'תזכורת: "{title}" ממתין לאישורך',
  'reminder.subject.view': 'תזכורת: "{title}" ממתין לעיונך',
  'reminder.intro.sign': 'תזכורת מאת {organization}: המסמך "{title}" עדיין ממתין לחתימתך.',
  'reminder.intro.fill': 'תזכורת מאת {organization}: המסמך "{title}" עדיין ממתין למילוי שלך.',
  'reminder.intro.approve': 'תזכורת מאת {organization}: המסמך "{title}" עדיין ממתין לאישורך.',
  'reminder.intro.view': 'תזכורת מאת {organization}: המסמך "{title}" עדיין ממתין לעיונך.',
  'reminder.short.sign': 'תזכורת מאת {organization}: "{title}" ממתין לחתימתך: {link}',
  'reminder.short.fill': 'תזכורת מאת {organization}: "{title}" ממתין למילוי שלך: {link}',
  'reminder.short.approve': 'תזכורת מאת {organization}: "{title}" ממתין לאישורך: {link}',
  'reminder.short.view': 'תזכורת מאת {organization}: "{title}" ממתין לעיונך: {link}',

  'otp.subject': 'קוד האימות שלך לחתימה',
  'otp.short':
    '{organization}: קוד האימות שלך לחתימה הוא {code}. הקוד תקף {minutes} דקות. אין למסור אותו לאף אחד.',

  'completed.subject': '"{title}" הושלם',
  'completed.intro':
    'כל הנמענים השלימו את המסמך "{title}" ששלחו לך {organization}. המסמך החתום ודוח המעקב שלו מוכנים להורדה.',
  'completed.button': 'להורדת המסמך החתום',
  'completed.attached': 'המסמך החתום מצורף להודעה זו.',
  'completed.tooLarge': 'המסמך החתום ({size}) גדול מכדי לצרף אותו להודעה: אפשר להוריד אותו בקישור שלמעלה.',
  'completed.short': '"{title}" של {organization} הושלם. להורדת המסמך החתום: {link}',

  'declined.subject': '{decliner} דחה/תה את "{title}"',
  'declined.intro': '{decliner} דחה/תה את "{title}". המעטפה נסגרה ואיש לא יוכל לפעול בה עוד.',
  'declined.reason': 'הסיבה שנמסרה: {reason}',
  'declined.short': '{decliner} דחה/תה את "{title}". הסיבה: {reason}',

  'cancelled.subject': 'המעטפה "{title}" בוטלה',
  'cancelled.intro': 'המעטפה "{title}" בוטלה. קישורי החתימה שלה אינם פעילים עוד.',
  'cancelled.reason': 'הסיבה: {reason}',
  'cancelled.short': 'המעטפה "{title}" של {organization} בוטלה.',

  'expiringSoon.subject': 'תוקף "{title}" יפוג בעוד {days} ימים',
  'expiringSoon.subject.one': 'תוקף "{title}" יפוג מחר',
  'expiringSoon.intro':
    'תוקף המסמך "{title}" ששלחו לך {organization} יפוג בעוד {days} ימים, ב-{deadline}. לאחר מכן לא ניתן יהיה להשלים אותו.',
  'expiringSoon.intro.one':
    'תוקף המסמך "{title}" ששלחו לך {organization} יפוג מחר, ב-{deadline}. לאחר מכן לא ניתן יהיה להשלים אותו.',
  'expiringSoon.short': 'תוקף "{title}" של {organization} יפוג בעוד {days} ימים: {link}',
  'expiringSoon.short.one': 'תוקף "{title}" של {organization} יפוג מחר: {link}',

  'expired.subject': 'תוקף "{title}" פג',
  'expired.intro':
    'המועד האחרון של המסמך "{title}" ששלחו לך {organization} עבר. קישור החתימה שלו אינו פעיל עוד; אם עדיין יש צורך להשלים אותו, {organization} יכולים להאריך את המועד.',
  'expired.short': 'תוקף "{title}" של {organization} פג: הקישור שלו אינו פעיל עוד.',

  'account.verifyEmail.subject': 'אישור כתובת הדוא"ל שלך עבור {organization} ב-Sigil',
  'account.verifyEmail.intro':
    'ברוכים הבאים ל-Sigil. אשרו ש-{email} היא כתובת הדוא"ל שלכם כדי להשלים את הקמת החשבון שלכם ב-{organization}.',
  'account.verifyEmail.button': 'לאישור כתובת הדוא"ל',
  'account.verifyEmail.note':
    'הקישור תקף 48 שעות. אם לא יצרתם את החשבון הזה, התעלמו מההודעה: בלי הקישור דבר לא יקרה.',

  'account.resetPassword.subject': 'איפוס הסיסמה שלך ב-Sigil',
  'account.resetPassword.intro':
    'קיבלנו בקשה לאפס את הסיסמה של חשבון ה-Sigil שלך ({email}) ב-{organization}.',
  'account.resetPassword.button': 'לבחירת סיסמה חדשה',
  'account.resetPassword.note':
    'הקישור תקף פעם אחת, למשך שעה. אם לא ביקשתם אותו, התעלמו מההודעה: הסיסמה שלכם נשארת כפי שהיא.',

  'account.invite.subject': 'הוזמנת להצטרף ל-{organization} ב-Sigil',
  'account.invite.intro': '{organization} הזמינו אותך ({email}) להצטרף לצוות שלהם ב-Sigil.',
  'account.invite.invitedBy': 'ההזמנה נשלחה על ידי {inviter}.',
  'account.invite.button': 'לקבלת ההזמנה',
  'account.invite.note': 'ההזמנה תקפה 7 ימים. אם לא ציפית לה, התעלמו מההודעה.',

  'account.mfaReset.subject': 'האימות הדו-שלבי שלך אופס',
  'account.mfaReset.intro':
    'מנהל/ת ב-{organization} איפס/ה את האימות הדו-שלבי של חשבון ה-Sigil שלך ({email}): אפליקציית האימות, קודי הגיבוי ומפתחות הגישה הוסרו, והחשבון נותק מכל ההתחברויות.',
  'account.mfaReset.button': 'לכניסה',
  'account.mfaReset.note': 'היכנסו עם הסיסמה והגדירו שוב אימות דו-שלבי. אם לא ביקשת זאת, פנו למנהל/ת הארגון.',

  'account.accountUnlocked.subject': 'אפשר שוב להיכנס ל-Sigil',
  'account.accountUnlocked.intro':
    'התמיכה של Sigil שחררה את הנעילה של הכניסה לחשבון שלך ({email}) ב-{organization}, שננעלה אחרי כמה סיסמאות שגויות.',
  'account.accountUnlocked.button': 'לכניסה',
  'account.accountUnlocked.note':
    'אם שכחת את הסיסמה, בחרו "שכחת את הסיסמה?" בדף הכניסה. אם לא ביקשת זאת, פנו למנהל/ת הארגון.',

  'account.passwordChanged.subject': 'הסיסמה שלך ב-Sigil שונתה',
  'account.passwordChanged.intro':
    'הסיסמה של חשבון ה-Sigil שלך ({email}) ב-{organization} שונתה, וכל שאר ההתחברויות של החשבון נותקו.',
  'account.passwordChanged.button': 'לאיפוס הסיסמה',
  'account.passwordChanged.note':
    'אם שינית אותה בעצמך, אין צורך לעשות דבר. אם לא, אפסו את הסיסמה עכשיו ועדכנו את מנהל/ת הארגון.',

  'account.emailChange.subject': 'אישור כתובת הדוא"ל החדשה שלך ב-Sigil',
  'account.emailChange.intro':
    'ביקשת להשתמש ב-{email} עבור חשבון ה-Sigil שלך ב-{organization}. אשרו זאת, ומעתה תיכנסו עם הכתובת הזאת.',
  'account.emailChange.button': 'לאישור הכתובת החדשה',
  'account.emailChange.note':
    'הקישור תקף פעם אחת, למשך 24 שעות. עד שייפתח, החשבון שומר על הכתובת הנוכחית. אם לא ביקשתם זאת, התעלמו מההודעה.',

  'account.emailChangeRequested.subject': 'התבקש שינוי של כתובת הדוא"ל שלך ב-Sigil',
  'account.emailChangeRequested.intro':
    'מישהו שמחובר לחשבון ה-Sigil שלך ({email}) ב-{organization} ביקש לשנות את כתובת הדוא"ל שלו. קישור לאישור נשלח לכתובת החדשה; דבר לא ישתנה עד שייפתח.',
  'account.emailChangeRequested.button': 'לאיפוס הסיסמה',
  'account.emailChangeRequested.note':
    'אם זה היית את/ה, אין צורך לעשות דבר. אם לא, אפסו את הסיסמה עכשיו: הבקשה דרשה אותה.',

  'account.emailChanged.subject': 'כתובת הדוא"ל שלך ב-Sigil שונתה',
  'account.emailChanged.intro':
    'כתובת הדוא"ל של חשבון ה-Sigil שלך ב-{organization} אינה עוד {email}: הכתובת החדשה אושרה, ומעתה נכנסים איתה. שאר ההתחברויות שלך נותקו.',
  'account.emailChanged.button': 'לכניסה',
  'account.emailChanged.note': 'אם לא את/ה ביצעת את השינוי, פנו מיד למנהל/ת הארגון ב-{organization}.',

  'account.registrationAttempt.subject': 'מישהו ניסה להירשם עם כתובת הדוא"ל שלך',
  'account.registrationAttempt.intro':
    'מישהו ניסה ליצור חשבון Sigil חדש עם {email}, שכבר שייכת לחשבון שלך ב-{organization}. לא נוצר חשבון חדש.',
  'account.registrationAttempt.button': 'לכניסה',
  'account.registrationAttempt.note':
    'אם זה היית את/ה, היכנסו עם החשבון הקיים, או אפסו את הסיסמה אם שכחתם אותה. אם לא, אין צורך לעשות דבר.',

  'account.invitationAttempt.subject': '{organization} ניסו להזמין אותך ל-Sigil',
  'account.invitationAttempt.intro':
    '{inviter} מ-{organization} הזמינו את {email} להצטרף ל-{organization} ב-Sigil. הכתובת הזו כבר שייכת לחשבון ה-Sigil שלך בארגון אחר, וכתובת יכולה להשתייך לארגון אחד בלבד, ולכן אי אפשר לקבל את ההזמנה איתה. החשבון שלך נשאר כפי שהוא.',
  'account.invitationAttempt.button': 'לכניסה לחשבון שלך',
  'account.invitationAttempt.note':
    'כדי להצטרף ל-{organization}, בקשו מהם להזמין כתובת אחרת שלכם; או, אם אתם עוזבים את הארגון הנוכחי, בקשו ממנהל הארגון למחוק שם את החשבון שלכם, ואז בקשו מ-{organization} לשלוח את ההזמנה שוב. אם לא ציפיתם להודעה, אין צורך לעשות דבר.',

  'backoffice.code.subject': 'קוד הכניסה שלך לממשק הניהול של Sigil',
  'backoffice.code.intro':
    'קוד הכניסה שלך לממשק הניהול של Sigil הוא {code}. הוא תקף פעם אחת, למשך {minutes} דקות.',
  'backoffice.code.note': 'אם לא ניסית להיכנס הרגע, מישהו יודע את הסיסמה שלך: החליפו אותה והודיעו למנהל אחר.',
};

export const NOTIFICATION_MESSAGES: Record<NotificationLanguage, Record<NotificationMessageKey, string>> = {
  en,
  he,
};

/** The `{name}` placeholders of a message, sorted. */
export function placeholdersOf(message: string): string[] {
  return [...message.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string).sort();
}
