package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// command is one row of the command table: the one place a command is named, described and
// wired. run dispatches by it and help lists it; a command's flags' help comes from the flag
// set its flags declares.
type command struct {
	name    string // as typed: "tenant create"
	args    string // the flags in short
	summary string // what it does and prints
	// flags declares a store command's flags on fs and returns what it does on the open store.
	flags func(fs *flag.FlagSet, cfg Config, stdout io.Writer) storeRun
	// run runs any other command with the arguments after its name.
	run func(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error
}

// commands is the command table, in the order help lists it. help itself is answered by run.
func commands() []command {
	return []command{
		{"serve", "", "run the server (the default without a command)", nil, serveCommand},
		{"tenant create", "--name NAME [--rate-limit N] [--retention 2y [--retention-from created|consents-lapsed]]", `create a tenant; prints {"id","name","rateLimit"} (+ its default retention)`, tenantCreate, nil},
		{"tenant update", "--tenant ID [--retention 2y|\"\" [--retention-from created|consents-lapsed]] [--default-country DE|\"\"] [--sms-stop-words w1,w2|\"\"] [--legal-name N] [--contact-email E] [--privacy-url URL] [--address A] [--jurisdiction DE]", `set or clear the default retention of records without a form, the default country national phone numbers are read in, the tenant's own SMS opt-out words, and the organisation's identity shown on the person's pages and in receipts; prints {"id",...}`, tenantUpdate, nil},
		{"tenant suspend", "--tenant ID", `suspend a tenant (its keys answer 401); prints {"id","status"}`, tenantStatus(tenants.TenantSuspended), nil},
		{"tenant activate", "--tenant ID", `activate a suspended tenant; prints {"id","status"}`, tenantStatus(tenants.TenantActive), nil},
		{"tenant set-sendgrid-key", "--tenant ID --public-key KEY", "store SendGrid's webhook verification key", tenantSendGridKey, nil},
		{"tenant set-smtp", "--tenant ID --host H --port 587 --tls starttls|implicit|none --user U --password-file F --from \"Name <addr>\" [--reply-to addr]", `set the tenant's outgoing mail server (the password sealed, never shown again; --tls none for a loopback host only): the service then sends its confirmation and thank-you mails; prints {"tenant","host","port","from","set":true}`, tenantSetSMTP, nil},
		{"tenant set-sms-secret", "--tenant ID --provider twilio|telnyx|vonage --secret S", `store an SMS provider's webhook secret, sealed, never shown again; prints {"tenant","provider","set":true}`, tenantSMSSecret, nil},
		{"tenant rotate-receipt-key", "--tenant ID", `sign the tenant's receipts with a new Ed25519 key from now on; the old keys stay in its JWKS, so earlier receipts still verify; prints {"tenant","kid","keys"}`, tenantRotateReceiptKey, nil},
		{"tenant add-sms-number", "--tenant ID --number +E164", `register a number the tenant sends SMS from: inbound messages then apply to it only when sent to one of its numbers; prints {"tenant","number","added"}`, tenantAddSMSNumber, nil},
		{"tenant remove-sms-number", "--tenant ID --number +E164", `remove one of the tenant's SMS sending numbers; prints {"tenant","number","removed":true}`, tenantRemoveSMSNumber, nil},
		{"key create", "--tenant ID (--scopes s1,s2|all | --publishable --forms f1,f2 --origins https://a.example) [--name N] [--expires RFC3339]", `issue an API key, shown once; prints {"id","key","scopes"} (a publishable key also "forms","origins")`, keyCreate, nil},
		{"key revoke", "--tenant ID --id KEYID", `revoke an API key; prints {"id","revoked":true}`, keyRevoke, nil},
		{"form create", "--tenant ID --form-id FID [--name N] [--closed] [--retention 2y [--retention-from created|consents-lapsed]]", `create a form; prints {"formId"} (+ its retention)`, formCreate, nil},
		{"form update", "--tenant ID --form-id FID [--double-opt-in email,phone|none] [--language de|\"\"] [--confirm-within 7d] [--primary-for 1y] [--contact-for 2y] [--hosted-page on|off] [--allow-no-js on|off] [--consent-source S] [--thank-you-mail on|off] [--remind-after 3d|none]", `change a form's double opt-in channels, language, confirmation period, how long the consents its public ways take last, its hosted page and no-script fallback, its thank-you mail and confirmation reminder; prints {"formId","language","doubleOptIn","confirmWithin","primaryFor","contactFor","hostedPage","allowNoJs","consentSource","thankYouMail","remindAfter"}`, formUpdate, nil},
		{"form text", "--tenant ID --form-id FID --consent primary_purpose|general_contact_email|general_contact_phone --lang LANG (--file F | --text T)", `publish a new version of a consent's text on a form (never changed afterwards); prints {"version","hash","consent","language","publishedAt"}`, formText, nil},
		{"retention run", "", `anonymise the records whose retention has run out, now; prints {"anonymised":{per kind}}`, retentionRun, nil},
		{"audit verify", "[--tenant ID]", `walk the audit log's hash chains; prints {"tenants","entries","ok"}, or the first broken entry and exits 1`, auditVerifyCommand, nil},
		{"audit acknowledge", "--tenant ID --entry ENTRY --reason R", `accept the reported break of a tenant's chain (audited, with the reason); prints the new verification {"tenants","entries","ok"}`, auditAcknowledgeCommand, nil},
		{"receipt verify", "--file F [--jwks URL|FILE]", `check a signed receipt (…/receipt?format=jws) against the tenant's public keys, offline with a JWKS file; prints {"valid","kid","recordId","tenant","events"}, exit 0 valid, 1 invalid`, nil, receiptVerify},
		{"staff create", "--email E --password P --role ROLE [--tenant ID]", `create an admin UI user; prints {"id"}`, staffCreate, nil},
		{"staff disable", "--email E", `disable an admin UI user and end their sessions; prints {"id","disabled":true}`, staffDisabled(true), nil},
		{"staff enable", "--email E", `re-enable a disabled admin UI user; prints {"id","disabled":false}`, staffDisabled(false), nil},
		{"staff set-password", "--email E --password P", `set a password to be changed at the next sign-in, ending the user's sessions; prints {"id","mustChangePassword":true}`, staffPassword, nil},
		{"token create", "--tenant ID --provider mailchimp|sendgrid [--name N]", `issue a webhook token (Mailchimp URL token, or SendGrid OAuth client: id = client id, token = client secret), shown once; prints {"id","token","name"}`, tokenCreate, nil},
		{"token list", "--tenant ID", `list the tenant's webhook tokens with their names and last use; prints {"tokens":[…]}`, tokenList, nil},
		{"token revoke", "--tenant ID --id TOKENID", `revoke a webhook token; prints {"id","revoked":true}`, tokenRevoke, nil},
		{"webhook create", "--tenant ID --url https://… --events t1,t2|all", `register an outgoing webhook endpoint; prints {"id","url","events","secret"}, the secret shown once`, webhookCreate, nil},
		{"webhook list", "--tenant ID", `list the tenant's outgoing webhook endpoints; prints {"endpoints":[…]}`, webhookList, nil},
		{"webhook delete", "--tenant ID --id ENDPOINTID", `delete an outgoing webhook endpoint and its delivery log; prints {"id","deleted":true}`, webhookDelete, nil},
		{"secrets rotate-session-key", "", `new session-signing key, old one accepted one session lifetime; prints {"sessionKeyId","retired","acceptedUntil"}`, nil, rotateSessionKeyCommand},
		{"secrets rotate-secrets-key", "", `new key sealing the tenants' SMS provider secrets, every secret re-sealed under it; prints {"secretsKeyId","retired","resealed","unreadable"}`, nil, rotateSecretsKeyCommand},
		{"rehash", "", `new keys and every record's match keys re-derived after a lost secrets file (servers stopped); prints {"records","rehashed"}`, nil, rehashCommand},
		{"export", "[--out FILE]", "write every document as NDJSON (stdout by default)", nil, export},
		{"import", "[--in FILE] [--merge]", `load an export into the configured store; prints {"read","added"}`, nil, importData},
		{"backup", "--out FILE", `copy the embedded store while the server runs; prints {"out","bytes"}`, nil, withoutStderr(backup)},
		{"restore", "--in FILE", `put a backup into an empty data dir; prints {"restored","dataDir"}`, nil, withoutStderr(restore)},
		{"version", "", `prints {"version","commit","go"}`, nil, versionCommand},
		{"help", "[COMMAND]", "this help, or a command's", nil, nil},
	}
}

// usage is the whole help text.
func usage() string {
	var b strings.Builder
	b.WriteString("Usage: consentforms [COMMAND] [FLAGS]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-24s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'consentforms COMMAND --help' for a command's flags. Configuration comes from the\n" +
		"environment (README.md#configuration, docs/OPERATIONS.md). Every command prints one JSON\n" +
		"object on stdout and exits 0; errors go to stderr with exit 1, usage errors with exit 2.\n")
	return b.String()
}

// commandUsage is one command's help: its line in the table and its flags (fs may be nil).
func commandUsage(name string, fs *flag.FlagSet) string {
	var b strings.Builder
	c := command{name: name}
	for _, row := range commands() {
		if row.name == name {
			c = row
		}
	}
	fmt.Fprintf(&b, "Usage: consentforms %s %s\n", c.name, c.args)
	if c.summary != "" {
		fmt.Fprintf(&b, "\n%s\n", c.summary)
	}
	if fs != nil {
		var flags strings.Builder
		fs.VisitAll(func(f *flag.Flag) {
			value, help := flag.UnquoteUsage(f)
			fmt.Fprintf(&flags, "  --%s", f.Name)
			if value != "" {
				fmt.Fprintf(&flags, " %s", value)
			}
			fmt.Fprintf(&flags, "\n    \t%s", strings.ReplaceAll(help, "\n", "\n    \t"))
			if f.DefValue != "" && f.DefValue != "false" {
				fmt.Fprintf(&flags, " (default %q)", f.DefValue)
			}
			flags.WriteString("\n")
		})
		if flags.Len() > 0 {
			b.WriteString("\nFlags:\n" + flags.String())
		}
	}
	return b.String()
}

// requiredFlags are the flags a command's usage line names outside brackets and parentheses
// ("--tenant ID --scopes S [--name N]": tenant and scopes), so that what help shows as
// required is what the command requires.
func requiredFlags(args string) []string {
	var out []string
	depth := 0
	for _, word := range strings.Fields(args) {
		if depth == 0 && strings.HasPrefix(word, "--") {
			out = append(out, strings.TrimPrefix(word, "--"))
		}
		depth += strings.Count(word, "[") + strings.Count(word, "(") - strings.Count(word, "]") - strings.Count(word, ")")
	}
	return out
}

// requiredChoices are the groups in parentheses at the top level of a usage line
// ("(--file F | --text T)"): the first flag of each branch, one of which must be given.
func requiredChoices(args string) [][]string {
	var out [][]string
	var group []string
	depth, branchStart := 0, false
	for _, word := range strings.Fields(args) {
		if depth == 0 && strings.HasPrefix(word, "(") {
			group, branchStart = []string{}, true
		}
		inGroup := group != nil && (depth == 1 || depth == 0 && strings.HasPrefix(word, "("))
		if w := strings.TrimLeft(word, "("); inGroup && branchStart && strings.HasPrefix(w, "--") {
			group, branchStart = append(group, strings.TrimRight(strings.TrimPrefix(w, "--"), ")")), false
		}
		if inGroup && word == "|" {
			branchStart = true
		}
		depth += strings.Count(word, "(") + strings.Count(word, "[") - strings.Count(word, ")") - strings.Count(word, "]")
		if depth == 0 && group != nil {
			out, group = append(out, group), nil
		}
	}
	return out
}

// missingFlags is the usage error of a command line lacking flags the command requires.
func missingFlags(c command, fs *flag.FlagSet) error {
	var missing []string
	for _, name := range requiredFlags(c.args) {
		if fs.Lookup(name) != nil && !flagSet(fs, name) {
			missing = append(missing, "--"+name)
		}
	}
	for _, group := range requiredChoices(c.args) {
		given := false
		for _, name := range group {
			given = given || fs.Lookup(name) != nil && flagSet(fs, name)
		}
		if !given {
			missing = append(missing, "--"+strings.Join(group, " or --"))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &usageError{err: fmt.Errorf("%s: missing %s", c.name, strings.Join(missing, ", ")), usage: commandUsage(c.name, fs)}
}

// usageError is a command line the program cannot read: main prints it with the usage on
// stderr and exits 2.
type usageError struct {
	err   error
	usage string
}

func (e *usageError) Error() string { return e.err.Error() }

// exitCode reports err on w and returns the process's exit status: 2 with the usage for a
// command line it cannot read, 1 for any other error.
func exitCode(err error, w io.Writer) int {
	fmt.Fprintln(w, "consentforms:", err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprint(w, "\n"+ue.usage)
		return 2
	}
	return 1
}

// flagError turns a flag set's parse error into the answer: -h/--help prints the command's
// usage on stdout and succeeds; anything else is a usage error.
func flagError(name string, fs *flag.FlagSet, err error, stdout io.Writer) error {
	if errors.Is(err, flag.ErrHelp) {
		_, werr := io.WriteString(stdout, commandUsage(name, fs))
		return werr
	}
	return &usageError{err: fmt.Errorf("%s: %w", name, err), usage: commandUsage(name, fs)}
}

// parseFlags parses args into fs, allowing no positional argument. done is true when the
// command should stop with err (nil after printing its help).
func parseFlags(name string, fs *flag.FlagSet, args []string, stdout io.Writer) (done bool, err error) {
	if err := fs.Parse(args); err != nil {
		return true, flagError(name, fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return true, &usageError{err: fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0)), usage: commandUsage(name, fs)}
	}
	return false, nil
}

// unknownCommand is the usage error of a command line naming no command.
func unknownCommand(args []string) error {
	if len(args) > 1 && isHelp(args[1]) {
		args = args[:1]
	}
	return &usageError{err: fmt.Errorf("unknown command %q", strings.Join(args, " ")), usage: usage()}
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// isGroup reports whether word starts a command of the table ("tenant", "key", ...).
func isGroup(word string) bool {
	for _, c := range commands() {
		if strings.HasPrefix(c.name, word+" ") {
			return true
		}
	}
	return false
}
