/**
 * A route result that is already JSON text: the envelope interceptor puts it in `data` as it is, so a large reply
 * received as JSON (a 10,000-URL batch submission's 4.7 MB) is neither parsed nor serialised again by the gateway.
 */
export class RawJson {
  constructor(readonly json: string) {}

  /**
   * The array `key` of the JSON text of an object whose only member is that array (`{"jobs":[…]}` → `[…]`): cut out
   * without parsing when the text is laid out so, parsed otherwise. The caller guarantees "only member" (its type).
   */
  static onlyArrayMember(objectJson: string, key: string): RawJson {
    const prefix = `{${JSON.stringify(key)}:[`;
    if (objectJson.startsWith(prefix) && objectJson.endsWith(']}'))
      return new RawJson(objectJson.slice(prefix.length - 1, -1));
    const value = (JSON.parse(objectJson) as Record<string, unknown>)[key];
    return new RawJson(JSON.stringify(value ?? null));
  }
}
