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
