package scenarios

// Target is the service under test (block "target").
type Target struct {
	URL        string            // required; http or https
	Method     string            // default "GET"
	Headers    map[string]string // sent with every attempt
	Body       string            // request body, default empty
	AllowHosts []string          // required; the URL's host must be listed (normalised: NormalizeHost)
	// OKStatus lists the HTTP status codes that count as success; empty
	// means 200–299 (a 3xx is then not a success: a redirect is not the
	// service answering).
	OKStatus []int
}
