package mail

import (
	"errors"
	"strings"
	"testing"
)

func TestServerValidate(t *testing.T) {
	ok := Server{Host: "smtp.example.org", Port: 587, TLS: TLSStartTLS, User: "u", Password: "p", From: "Beispiel GmbH <noreply@beispiel.de>", ReplyTo: "hilfe@beispiel.de"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid server: %v", err)
	}
	valid := map[string]func(*Server){
		"implicit":          func(s *Server) { s.TLS, s.Port = TLSImplicit, 465 },
		"none on 127.0.0.1": func(s *Server) { s.TLS, s.Host = TLSNone, "127.0.0.1" },
		"none on 127.0.0.2": func(s *Server) { s.TLS, s.Host = TLSNone, "127.0.0.2" },
		"none on ::1":       func(s *Server) { s.TLS, s.Host = TLSNone, "::1" },
		"none on [::1]":     func(s *Server) { s.TLS, s.Host = TLSNone, "[::1]" },
		"none on localhost": func(s *Server) { s.TLS, s.Host = TLSNone, "LocalHost" },
		"IP host":           func(s *Server) { s.Host = "192.0.2.10" },
		"no login":          func(s *Server) { s.User, s.Password = "", "" },
		"no reply-to":       func(s *Server) { s.ReplyTo = "" },
		"bare from":         func(s *Server) { s.From = "noreply@beispiel.de" },
		"umlaut domain":     func(s *Server) { s.From = "info@müller.de" },
		"umlaut name":       func(s *Server) { s.From = "Jörg Müller <info@beispiel.de>" },
	}
	for name, change := range valid {
		s := ok
		change(&s)
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	invalid := []struct {
		name, field string
		change      func(*Server)
	}{
		{"no host", "host", func(s *Server) { s.Host = "" }},
		{"host with a space", "host", func(s *Server) { s.Host = "smtp example.org" }},
		{"host with a port", "host", func(s *Server) { s.Host = "smtp.example.org:25" }},
		{"port 0", "port", func(s *Server) { s.Port = 0 }},
		{"port 65536", "port", func(s *Server) { s.Port = 65536 }},
		{"no tls", "tls", func(s *Server) { s.TLS = "" }},
		{"tls ssl", "tls", func(s *Server) { s.TLS = "ssl" }},
		{"none over the network", "tls", func(s *Server) { s.TLS = TLSNone }},
		{"none on a private address", "tls", func(s *Server) { s.TLS, s.Host = TLSNone, "10.0.0.1" }},
		{"none on localhost.example", "tls", func(s *Server) { s.TLS, s.Host = TLSNone, "localhost.example.org" }},
		{"password without user", "user", func(s *Server) { s.User = "" }},
		{"no from", "from", func(s *Server) { s.From = "" }},
		{"from without @", "from", func(s *Server) { s.From = "noreply" }},
		{"two froms", "from", func(s *Server) { s.From = "a@beispiel.de, b@beispiel.de" }},
		{"bad reply-to", "reply_to", func(s *Server) { s.ReplyTo = "Hilfe <hilfe>" }},
	}
	for _, tc := range invalid {
		s := ok
		tc.change(&s)
		err := s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: Validate() = %v, want a FieldError for %q", tc.name, err, tc.field)
			continue
		}
		if strings.Contains(err.Error(), "@") {
			t.Errorf("%s: error %q repeats an address", tc.name, err)
		}
	}

	// All problems at once, each its own FieldError.
	err := Server{}.Validate()
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if errors.As(e, &fe) {
			fields = append(fields, fe.Field)
		}
	}
	if got := strings.Join(fields, ","); got != "host,port,tls,from" {
		t.Errorf("zero Server: fields %q, want host,port,tls,from", got)
	}
}
