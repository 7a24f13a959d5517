package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/mail"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/sealed"
)

// mailOutbox is the dispatcher's Mailer: the tenants' confirmation and thank-you mails, sent
// through each tenant's mail server, whose settings are opened from their seal when a mail goes.
func mailOutbox(store tenants.Stores, keys func() *sealed.Keys, m *metrics) *mail.Outbox {
	return &mail.Outbox{Records: store.Records, Forms: store.Forms, Tenants: store.Tenants,
		Server: func(ctx context.Context, tenantID string) (tenants.MailServer, error) {
			return openMailServer(ctx, store.SMS, keys, tenantID)
		},
		Sent: func(_ string, _ mail.Kind, o mail.Outcome) {
			m.Count(map[mail.Outcome]tenants.Event{mail.Sent: tenants.EventMailSent, mail.Retry: tenants.EventMailRetried, mail.Final: tenants.EventMailFailed}[o], 1)
		}}
}

// openMailServer reads the tenant's sealed mail server; tenants.ErrNotFound when none is set.
func openMailServer(ctx context.Context, repo tenants.SMSRepo, keys func() *sealed.Keys, tenantID string) (tenants.MailServer, error) {
	sec, err := repo.Secret(ctx, tenantID, tenants.ProviderMail)
	if err != nil {
		return tenants.MailServer{}, err
	}
	plain, err := keys().Open(sec.Sealed, tenants.SMSSecretOwner(tenantID, tenants.ProviderMail))
	if err != nil {
		return tenants.MailServer{}, err
	}
	var ms tenants.MailServer
	return ms, json.Unmarshal([]byte(plain), &ms)
}

// mailServers are the tenants' mail servers as the admin UI reads and tries them.
type mailServers struct {
	repo tenants.SMSRepo
	keys func() *sealed.Keys
}

// MailServer is the tenant's mail server and when it was set.
func (m mailServers) MailServer(ctx context.Context, tenantID string) (tenants.MailServer, time.Time, error) {
	sec, err := m.repo.Secret(ctx, tenantID, tenants.ProviderMail)
	if err != nil {
		return tenants.MailServer{}, time.Time{}, err
	}
	ms, err := openMailServer(ctx, m.repo, m.keys, tenantID)
	return ms, sec.SetAt, err
}

// TestMail sends the test mail to the address through the tenant's server.
func (m mailServers) TestMail(ctx context.Context, tenantID, to string) (string, bool, error) {
	ms, err := openMailServer(ctx, m.repo, m.keys, tenantID)
	if err != nil {
		return "", false, err
	}
	res := mail.Send(ctx, mail.Server{Host: ms.Host, Port: ms.Port, TLS: ms.TLS, User: ms.User, Password: ms.Password, From: ms.From,
		ReplyTo: ms.ReplyTo}, mail.Message{ID: "test-" + tenants.NewID(""), To: to, Subject: "Test mail from consentforms",
		Text: "This is a test mail: the mail server settings of your organisation work.\n"}, 0)
	answer := res.Answer
	if c := strconv.Itoa(res.Code); res.Code != 0 && !strings.HasPrefix(answer, c) {
		answer = c + " " + answer
	}
	return answer, res.Outcome == mail.Sent, nil
}

// checkMailServer checks a mail server's settings as the mail package sends with them, each
// problem a violation named by its setting.
func checkMailServer(ms tenants.MailServer) error {
	err := mail.Server{Host: ms.Host, Port: ms.Port, TLS: ms.TLS, User: ms.User, Password: ms.Password, From: ms.From, ReplyTo: ms.ReplyTo}.Validate()
	if err == nil {
		return nil
	}
	var vs tenants.Violations
	for _, e := range unjoin(err) {
		var fe *mail.FieldError
		if errors.As(e, &fe) {
			vs = append(vs, tenants.Violation{Field: fe.Field, Code: "invalid", Message: fe.Msg})
		}
	}
	if len(vs) == 0 {
		return err
	}
	return vs
}

// unjoin is the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

type smtpSet struct {
	Tenant string `json:"tenant"`
	Host   string `json:"host"`
	Port   int    `json:"port"`
	From   string `json:"from"`
	Set    bool   `json:"set"`
}

func tenantSetSMTP(fs *flag.FlagSet, cfg Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	host := fs.String("host", "", "the mail server's host name")
	port := fs.Int("port", 587, "its SMTP submission port")
	tlsMode := fs.String("tls", mail.TLSStartTLS, "starttls, implicit, or none (a loopback host only)")
	user := fs.String("user", "", "the login (none: no AUTH)")
	passwordFile := fs.String("password-file", "", "a file holding the password (never on the command line)")
	from := fs.String("from", "", `the sender, "Name <address>"`)
	replyTo := fs.String("reply-to", "", "where answers go")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		var password string
		if *passwordFile != "" {
			b, err := os.ReadFile(*passwordFile)
			if err != nil {
				return nil, err
			}
			password = strings.TrimRight(string(b), "\r\n")
		}
		keys, err := loadSecrets(cfg)
		if err != nil {
			return nil, err
		}
		p := provisioner(s)
		p.SecretsKeys = keys.secretsKeys
		ms := tenants.MailServer{Host: strings.TrimSpace(*host), Port: *port, TLS: strings.ToLower(strings.TrimSpace(*tlsMode)), User: *user,
			Password: password, From: strings.TrimSpace(*from), ReplyTo: strings.TrimSpace(*replyTo)}
		if err := p.SetMailServer(ctx, cliActor, *tenant, ms); err != nil {
			return nil, flagErrors(err)
		}
		return smtpSet{Tenant: *tenant, Host: ms.Host, Port: ms.Port, From: ms.From, Set: true}, nil
	}
}
