// NATS URLs may carry a user and password; messages show them without.
export function redactUrl(url) {
  return url.replace(/(^|,\s*)([a-z][a-z0-9+.-]*:\/\/)[^@/,]*@/gi, '$1$2***@');
}
