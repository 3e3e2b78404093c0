package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/interp"
)

// The man page, rendered by man itself, documents every flag of grid and every algorithm of
// the registry, with no roff warning.
func TestManPage(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	code, page, stderr := runAidw(t, "man")
	if code != 0 {
		t.Fatalf("aidw man: exit %d: %s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "aidw.1")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "--warnings", "-l", path)
	cmd.Env = append(os.Environ(), "MANWIDTH=200", "MAN_KEEP_FORMATTING=0")
	var out, warnings strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &warnings
	if err := cmd.Run(); err != nil || warnings.Len() > 0 {
		t.Fatalf("man -l: %v: %s", err, warnings.String())
	}
	// overstrikes (bold) out, and every run of blanks, which justification widens, one space
	text := strings.Join(strings.Fields(regexp.MustCompile(".\x08").ReplaceAllString(out.String(), "")), " ")
	if !strings.HasPrefix(text, "aidw(1)") {
		t.Errorf("the page starts %q", text[:min(80, len(text))])
	}
	for _, f := range gridFlagList {
		if !strings.Contains(text, " "+strings.TrimSpace(f.name+" "+f.args)+" "+f.help) {
			t.Errorf("the page has no entry for %s %s", f.name, f.args)
		}
	}
	for _, d := range interp.Registry {
		if !strings.Contains(text, " "+d.Name+" ") || !strings.Contains(text, "Keys: "+d.Keys()) {
			t.Errorf("the page does not list %s with its keys %s", d.Name, d.Keys())
		}
	}
	for _, section := range []string{"STANDARD INPUT AND OUTPUT", "EXIT STATUS", "ENVIRONMENT"} {
		if !strings.Contains(text, " "+section+" ") {
			t.Errorf("no %s section", section)
		}
	}
}

// The bash completion, run by bash, completes commands, flags, algorithms from the registry
// and the alternatives a flag declares.
func TestBashCompletion(t *testing.T) {
	code, script, stderr := runAidw(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "aidw.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) []string {
		t.Helper()
		cmd := exec.Command("bash", "-c", `source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$(($# - 1)); _aidw; printf '%s\n' "${COMPREPLY[@]}"`, path)
		cmd.Args = append(cmd.Args, words...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v: %s", err, out)
		}
		return strings.Fields(string(out))
	}
	var inv []string
	for _, d := range interp.Registry {
		if strings.HasPrefix(d.Name, "inv") {
			inv = append(inv, d.Name)
		}
	}
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"aidw", "gr"}, []string{"grid"}},
		{[]string{"aidw", "grid", "-a", "inv"}, inv},
		{[]string{"aidw", "grid", "-return"}, []string{"-returns"}},
		{[]string{"aidw", "grid", "-returns", ""}, []string{"first", "last", "all"}},
		{[]string{"aidw", "bench", "--qu"}, []string{"--quick"}},
		{[]string{"aidw", "cv", "-fol"}, []string{"-folds"}},
	} {
		if got := complete(c.words...); !slices.Equal(got, c.want) {
			t.Errorf("%q completes to %q, want %q", c.words, got, c.want)
		}
	}
}

// The zsh completion is a script zsh reads without error.
func TestZshCompletion(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed")
	}
	code, script, stderr := runAidw(t, "completion", "zsh")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "_aidw")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("zsh", "-n", path).CombinedOutput(); err != nil {
		t.Errorf("zsh -n: %v: %s", err, out)
	}
	if code, _, stderr := runAidw(t, "completion", "fish"); code != 1 || !strings.Contains(stderr, "give bash or zsh") {
		t.Errorf("completion fish: exit %d: %s", code, stderr)
	}
}
