package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// importChunk is how many items one import transaction writes.
const importChunk = 500

// progressEvery is how often export and import report progress on stderr.
const progressEvery = 2 * time.Second

// export writes every document of the configured store as NDJSON, one tenants.Item a line,
// to --out (default stdout), with progress on stderr.
func export(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "file to write (default: standard output)")
	if done, err := parseFlags("export", fs, args, stdout); done {
		return err
	}
	w := stdout
	if *out != "" {
		// The export holds personal data and credential hashes: only its owner may read it.
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer f.Close()
		w = f
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	p := newProgress(stderr, "exported")
	err = store.Transfer.Export(ctx, func(it tenants.Item) error {
		p.add(1)
		return enc.Encode(it)
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	p.done()
	return nil
}

// importData loads an export (--in, default stdin) into the configured store. An item that
// exists is skipped, so an interrupted import can be repeated; a store that holds data is
// refused unless --merge.
func importData(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	in := fs.String("in", "", "file to read (default: standard input)")
	merge := fs.Bool("merge", false, "import into a store that holds data already")
	if done, err := parseFlags("import", fs, args, stdout); done {
		return err
	}
	var r io.Reader = os.Stdin
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	if !*merge {
		empty, err := store.Transfer.Empty(ctx)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if !empty {
			return errors.New("import: the target store holds data; use --merge to import into it anyway")
		}
	}
	read, added, err := loadItems(ctx, store.Transfer, r, newProgress(stderr, "imported"))
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if added > 0 && cfg.HMACKey == "" {
		if _, err := os.Stat(cfg.SecretsFile); errors.Is(err, iofs.ErrNotExist) {
			fmt.Fprintf(stderr, "consentforms: warning: %s does not exist: the server refuses to start on imported data without "+
				"the secrets file of the installation that exported it (copy it there), or run `consentforms rehash` to give the data new keys\n", cfg.SecretsFile)
		}
	}
	// The records may have been keyed by an older version: the next start re-keys them.
	if added > 0 {
		if err := store.MatchKeys.SetKeyingVersion(ctx, 0); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return json.NewEncoder(stdout).Encode(map[string]int{"read": read, "added": added})
}

func loadItems(ctx context.Context, t tenants.Transfer, r io.Reader, p *progress) (read, added int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var chunk []tenants.Item
	flush := func() error {
		n, err := t.Import(ctx, chunk)
		added += n
		p.add(len(chunk))
		chunk = chunk[:0]
		return err
	}
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var it tenants.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return read, added, fmt.Errorf("line %d: not an export line", read+1)
		}
		read++
		if chunk = append(chunk, it); len(chunk) == importChunk {
			if err := flush(); err != nil {
				return read, added, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return read, added, err
	}
	if len(chunk) > 0 {
		if err := flush(); err != nil {
			return read, added, err
		}
	}
	p.done()
	return read, added, nil
}

// progress reports a running count on stderr now and then.
type progress struct {
	w    io.Writer
	verb string
	n    int
	last time.Time
}

func newProgress(w io.Writer, verb string) *progress {
	return &progress{w: w, verb: verb, last: time.Now()}
}

func (p *progress) add(n int) {
	p.n += n
	if time.Since(p.last) >= progressEvery {
		p.last = time.Now()
		fmt.Fprintf(p.w, "%s %d documents\n", p.verb, p.n)
	}
}

func (p *progress) done() { fmt.Fprintf(p.w, "%s %d documents in all\n", p.verb, p.n) }
