package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var subjectRequestTests = map[string]func(t *testing.T, open Open){
	"life cycle":          testSubjectRequestLifeCycle,
	"concurrent one open": testSubjectRequestOneOpen,
}

func subjectRequest(tenant, id, kind, subject string, offset int) tenants.SubjectRequest {
	return tenants.SubjectRequest{ID: id, TenantID: tenant, Kind: kind, Subject: subject, RecordKind: tenants.KindFormSubmission,
		RecordID: "rec-" + subject, Source: tenants.SourcePreferencePage, FiledAt: t0.Add(sec(offset)), Status: tenants.SubjectRequestOpen}
}

func requestIDs(list []tenants.SubjectRequest) string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = r.ID
	}
	return fmt.Sprint(out)
}

// A person has one open request per kind; a repeat gives the open one; once done, a new one
// may be filed; lists are newest first, by tenant, status, person and record.
func testSubjectRequestLifeCycle(t *testing.T, open Open) {
	s := open(t).SubjectRequests
	got, created, err := s.FileSubjectRequest(ctx, subjectRequest("a", "sr1", tenants.SubjectRequestAccess, "h1", 1))
	if err != nil || !created || got.ID != "sr1" {
		t.Fatalf("first filing = %+v, %v, %v", got, created, err)
	}
	got, created, err = s.FileSubjectRequest(ctx, subjectRequest("a", "sr2", tenants.SubjectRequestAccess, "h1", 2))
	if err != nil || created || got.ID != "sr1" || !got.FiledAt.Equal(t0.Add(sec(1))) {
		t.Errorf("second open filing = %+v, %v, %v; want sr1, not new", got, created, err)
	}
	if got, created, err = s.FileSubjectRequest(ctx, subjectRequest("a", "sr1", tenants.SubjectRequestAccess, "h1", 1)); err != nil || created || got.ID != "sr1" {
		t.Errorf("a repeat of the same filing = %+v, %v, %v", got, created, err)
	}
	mustFile := func(r tenants.SubjectRequest) {
		t.Helper()
		if _, created, err := s.FileSubjectRequest(ctx, r); err != nil || !created {
			t.Fatalf("filing %s = %v, %v", r.ID, created, err)
		}
	}
	mustFile(subjectRequest("a", "sr3", tenants.SubjectRequestErasure, "h1", 3))
	mustFile(subjectRequest("a", "sr4", tenants.SubjectRequestAccess, "h2", 4))
	mustFile(subjectRequest("b", "sr5", tenants.SubjectRequestAccess, "h1", 5))
	list, err := s.ListSubjectRequests(ctx, "a", tenants.SubjectRequestFilter{}, 0)
	if err != nil || requestIDs(list) != "[sr4 sr3 sr1]" {
		t.Fatalf("list = %v, %v; want sr4 sr3 sr1", requestIDs(list), err)
	}
	if list, _ := s.ListSubjectRequests(ctx, "a", tenants.SubjectRequestFilter{Subject: "h1"}, 1); requestIDs(list) != "[sr3]" {
		t.Errorf("h1's newest = %v", requestIDs(list))
	}
	if list, _ := s.ListSubjectRequests(ctx, "a", tenants.SubjectRequestFilter{RecordID: "rec-h2"}, 0); requestIDs(list) != "[sr4]" {
		t.Errorf("by record = %v", requestIDs(list))
	}
	if _, err := s.GetSubjectRequest(ctx, "b", "sr1"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("another tenant's request = %v", err)
	}
	at := t0.Add(time.Hour)
	must(t, s.CloseSubjectRequest(ctx, "a", "sr1", "staff:u1", at))
	if err := s.CloseSubjectRequest(ctx, "a", "sr1", "staff:u2", at); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("closing twice = %v, want ErrConflict", err)
	}
	if err := s.CloseSubjectRequest(ctx, "a", "nope", "staff:u2", at); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("closing an unknown request = %v, want ErrNotFound", err)
	}
	done, err := s.GetSubjectRequest(ctx, "a", "sr1")
	if err != nil || done.Status != tenants.SubjectRequestDone || done.DoneBy != "staff:u1" || done.DoneAt == nil || !done.DoneAt.Equal(at) ||
		done.Subject != "h1" || done.RecordKind != tenants.KindFormSubmission || done.Source != tenants.SourcePreferencePage {
		t.Errorf("closed request = %+v, %v", done, err)
	}
	if open, _ := s.ListSubjectRequests(ctx, "a", tenants.SubjectRequestFilter{Status: tenants.SubjectRequestOpen}, 0); requestIDs(open) != "[sr4 sr3]" {
		t.Errorf("open ones = %v", requestIDs(open))
	}
	mustFile(subjectRequest("a", "sr6", tenants.SubjectRequestAccess, "h1", 6))
}

// Filings of one person and kind at once store one request.
func testSubjectRequestOneOpen(t *testing.T, open Open) {
	s := open(t).SubjectRequests
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids, created := map[string]bool{}, 0
	for i := range 8 {
		wg.Go(func() {
			got, isNew, err := s.FileSubjectRequest(ctx, subjectRequest("a", fmt.Sprintf("sr%d", i), tenants.SubjectRequestErasure, "h1", i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("filing %d: %v", i, err)
				return
			}
			ids[got.ID] = true
			if isNew {
				created++
			}
		})
	}
	wg.Wait()
	if list, _ := s.ListSubjectRequests(ctx, "a", tenants.SubjectRequestFilter{}, 0); len(list) != 1 || len(ids) != 1 || created != 1 {
		t.Errorf("stored %v, answered %v, %d new; want one", requestIDs(list), ids, created)
	}
}
