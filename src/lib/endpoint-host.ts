// The host a published share groups endpoints by (methodology v1 and v2, "Population figures"):
// the host-weighted view counts each endpoint hostname once, so one gateway serving hundreds of
// registry names cannot dominate a share.

/** Lowercased hostname of the endpoint (port ignored); an unparseable endpoint stands for itself. */
export function endpointHost(endpoint: string | null): string {
  if (endpoint === null) return '';
  try {
    return new URL(endpoint).hostname;
  } catch (cause) {
    void cause; // an endpoint URL.parse rejects still names one server: group it by its own text
    return endpoint;
  }
}
