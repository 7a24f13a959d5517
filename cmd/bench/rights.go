package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"time"
)

// expiringPages times pages of the re-permission list (100 items, e-mail, 30 days), walking
// the cursor from the first page on: each page is one index range read after the last item.
func expiringPages(base, key string, samples int) error {
	var pages []time.Duration
	cursor, items := "", 0
	for range samples {
		q := url.Values{"channel": {"email"}, "within": {"30d"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		status, body, d, err := call("GET", base+"/api/v1/consents/expiring?"+q.Encode(), key, nil)
		if err != nil || status != 200 {
			return fmt.Errorf("expiring: %d %s %v", status, body, err)
		}
		var page struct {
			Items      []json.RawMessage `json:"items"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		pages = append(pages, d)
		items += len(page.Items)
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	printLatency(fmt.Sprintf("re-permission list page (100; %d items read)", items), pages)
	return nil
}

// retentionRun sets a tenant default retention of 1 hour (the phone call tasks, which belong
// to no form, created more than an hour ago fall due), runs `consentforms retention run`
// beside the running server and times it, with the latency of submissions accepted meanwhile:
// what the job's batches cost everyone else's intake.
func retentionRun(bin, dir, base, key, tenantID string) error {
	if _, err := cli(bin, dir, nil, "tenant", "update", "--tenant", tenantID, "--retention", "1h"); err != nil {
		return err
	}
	type result struct {
		out map[string]any
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		out, err := cli(bin, dir, nil, "retention", "run")
		done <- result{out, err}
	}()
	var intake []time.Duration
	for i := 0; ; i++ {
		select {
		case r := <-done:
			if r.err != nil {
				return r.err
			}
			took := time.Since(start)
			n := r.out["anonymised"].(map[string]any)["phoneCallTasks"].(float64)
			fmt.Printf("%-44s %.0f records in %.2f s: %.0f records/s\n", "retention run (tenant default, 1 hour)", n, took.Seconds(), n/took.Seconds())
			if len(intake) > 0 {
				printLatency("submission accepted during the retention run", intake)
			}
			return nil
		default:
		}
		status, body, d, err := call("POST", base+"/api/v1/forms/accept-submission", key, map[string]any{"form_id": "petition",
			"submission_id": fmt.Sprintf("during-retention-%d", i), "email": fmt.Sprintf("new%d@example.org", i), "consent_to_general_contact_email": true})
		if err != nil || status != 200 {
			return fmt.Errorf("submission during retention: %d %s %v", status, body, err)
		}
		intake = append(intake, d)
	}
}
