package analysis

// Touches is what a test does outside its process besides sending its
// load, as the scenario says: the servers it contacts, the commands it
// runs, the secrets it sends (named, never shown) and where, and the files
// it reads. plan prints it before anything happens; a run's result.json
// keeps it as the record of what the operator allowed.
type Touches struct {
	Hosts    []HostTouch    `json:"hosts,omitempty"`
	Commands []CommandTouch `json:"commands,omitempty"`
	Secrets  []SecretTouch  `json:"secrets,omitempty"`
	Files    []FileTouch    `json:"files,omitempty"`
}

// HostTouch is a server the test contacts and what it sends there.
type HostTouch struct {
	// Origin is scheme://host:port (a webhook's path left out: it is a
	// secret).
	Origin string `json:"origin"`
	For    string `json:"for"`
}

// CommandTouch is a command the test may run, without a shell.
type CommandTouch struct {
	When string   `json:"when"`
	Argv []string `json:"argv"`
	// Dir is the folder it runs from; "" the run's working folder.
	Dir string `json:"dir,omitempty"`
	// Env names the environment variables the scenario sets for it; their
	// values are not kept.
	Env []string `json:"env,omitempty"`
}

// SecretTouch is a secret that leaves the process: what it is, how it is
// sent, and to which origin (or, for one handed to a command on this
// machine, which command).
type SecretTouch struct {
	What   string `json:"what"`
	As     string `json:"as"`
	Origin string `json:"origin,omitempty"`
	Local  string `json:"local,omitempty"`
}

// FileTouch is a file the scenario makes the reader open.
type FileTouch struct {
	Path string `json:"path"`
	For  string `json:"for"`
}

// Empty reports whether t lists nothing.
func (t *Touches) Empty() bool {
	return t == nil || len(t.Hosts)+len(t.Commands)+len(t.Secrets)+len(t.Files) == 0
}
