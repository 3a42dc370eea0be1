// The two parts of the catalogs the web build makes (web/i18n-parts.ts): the signer page's words and all the
// others, each in both languages.
declare module 'virtual:i18n/signer' {
  const messages: Record<'en' | 'he', Record<string, string>>;
  export default messages;
}
declare module 'virtual:i18n/rest' {
  const messages: Record<'en' | 'he', Record<string, string>>;
  export default messages;
}
