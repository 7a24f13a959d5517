package ops

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
)

// RetentionWindow is how far ahead the admin form page counts what retention will anonymise.
const RetentionWindow = 30 * 24 * time.Hour

// RetentionPreview counts the form's records (formID "": the tenant's records of no form) that
// a retention of retention counted from from anonymises within RetentionWindow from now.
func (s *Rights) RetentionPreview(ctx context.Context, tenantID, formID, retention, from string) (int64, error) {
	iv, from, err := consent.ParseRetention(retention, from)
	if err != nil || retention == "" {
		return 0, err
	}
	n, err := s.Rights.CountDue(ctx, tenantID, tenants.DueQuery{FormID: formID, From: from, Before: iv.Before(s.Now().UTC().Add(RetentionWindow))})
	return n, wrap("retention preview", err)
}
