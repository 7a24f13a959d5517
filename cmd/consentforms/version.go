package main

import (
	"runtime"
	"runtime/debug"
)

// buildVersion is what `consentforms version` prints and the build-info metric carries:
// the module version, the VCS commit (with "+dirty" for a modified tree) and the Go
// version, all from the binary's build information.
type buildVersion struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Go      string `json:"go"`
}

// buildCommit names the commit where the build has no VCS information to stamp (a Docker
// build without .git, a git worktree): go build -ldflags "-X main.buildCommit=$(git rev-parse HEAD)".
// Set only by the linker, never at run time.
var buildCommit = "unknown"

func readVersion() buildVersion {
	v := buildVersion{Version: "unknown", Commit: buildCommit, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	revision, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if revision != "" {
		v.Commit = revision
		if dirty {
			v.Commit += "+dirty"
		}
	}
	return v
}
