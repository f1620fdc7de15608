// Package importer turns recorded traffic into the skeleton of a
// scenario: a HAR file (a browser's or a proxy's recording) or vegeta's
// HTTP targets format. Each distinct request (method, URL, body) becomes
// a request block whose weight is how often it was recorded; headers every
// request shares become the target's; credentials (Authorization, Cookie,
// API keys) become sensitive variables with no default, so none is
// written to the file; credentials in the URLs (a user:password@, and
// credential-like parameters such as ?session=, ?token=, X-Amz-Signature
// in the query, a path segment's ;jsessionid= or the fragment) are
// dropped (Stripped names them); the hosts become allow_hosts. The rest of the
// scenario (the service's capacity, the load, the client's timeout) is
// the user's to fill in: the skeleton parses, with those values marked.
//
// It imports nothing of the module: the command line reads the file,
// calls HAR or Vegeta, and writes Skeleton's output.
package importer
