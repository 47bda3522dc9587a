/** The media types whose bodies are XML: `application/xml`, `text/xml` and every `+xml` type (`application/soap+xml`). */
export function isXmlMediaType(mediaType: string): boolean {
  const essence = (mediaType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return (
    essence === 'application/xml' ||
    essence === 'text/xml' ||
    /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+xml$/.test(essence)
  );
}
