package main

import (
	"runtime/debug"
	"strings"

	"github.com/aidw/aidw/gdalio"
)

// versionString is aidw's version as --version prints it and the output's metadata records
// it: the -ldflags version when set, else the module's; the VCS revision, time and state Go
// stamped into the build; and the GDAL library it runs on, e.g.
// "aidw dev (git abc1234, 2026-11-23, modified) GDAL 3.6.2".
func versionString() string {
	mainVersion, settings := "", map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		mainVersion = info.Main.Version
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	return formatVersion(version, mainVersion, settings, gdalio.GDALVersion())
}

// formatVersion builds versionString from the -ldflags version, the module's version and the
// build's VCS settings (vcs.revision, vcs.time, vcs.modified).
func formatVersion(ldflags, mainVersion string, settings map[string]string, gdal string) string {
	v := ldflags
	if v == "dev" && mainVersion != "" && mainVersion != "(devel)" {
		v = mainVersion
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "git "+rev[:min(7, len(rev))])
	}
	if t := settings["vcs.time"]; len(t) >= 10 {
		vcs = append(vcs, t[:10])
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	s := "aidw " + v
	if len(vcs) > 0 {
		s += " (" + strings.Join(vcs, ", ") + ")"
	}
	return s + " GDAL " + gdal
}
