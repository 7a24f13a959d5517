package web

import (
	"strings"
	"testing"
)

// An erased record says so, and why its consents still read as they do.
func TestErasedRecordNote(t *testing.T) {
	sub := sampleSubmission()
	sub.Kind, sub.AnonymisedAt = KindFormSubmission, &t1
	doc, _ := render(t, Submission(SubmissionPage{Layout: testLayout("Submission sub-1", NavSubmissions), Submission: sub}))
	note := mustOne(t, doc, "erased-note").Text()
	if !strings.Contains(note, "Personal data erased on 2025-03-16 09:26:53 UTC.") || !strings.Contains(note, "record of what was agreed") {
		t.Errorf("note %q", note)
	}
	if byID(doc, "personal-masked-note").Length() != 0 {
		t.Errorf("masked note beside the erased note")
	}
	doc, _ = render(t, samplePages()["submission"])
	if byID(doc, "erased-note").Length() != 0 {
		t.Errorf("erased note on a record that is not")
	}
	// Empty values read as one dash, in the text font, whatever the cell's font.
	if got := mustOne(t, doc, "consent-generalContactEmail-timestamp").Find(".none").Length(); got != 1 {
		t.Errorf("absent timestamp is not the common dash")
	}
}
