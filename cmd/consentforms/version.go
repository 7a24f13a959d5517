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

func readVersion() buildVersion {
	v := buildVersion{Version: "unknown", Commit: "unknown", Go: runtime.Version()}
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
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && v.Commit != "unknown" {
		v.Commit += "+dirty"
	}
	return v
}
