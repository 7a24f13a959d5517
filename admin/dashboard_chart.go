package admin

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// The trends' spans: submissions over the last 30 days, one column a day; general-contact
// deadlines over the next 90 days, one column a week.
const (
	trendDays    = 30
	expiringDays = 90
)

// kindNames are the kinds' names in the dashboard: the API's name of their counts, the label.
var kindNames = map[tenants.Kind][2]string{
	tenants.KindFormSubmission: {"formSubmissions", "Form submissions"},
	tenants.KindDigitisation:   {"digitisationSubmissions", "Digitisation submissions"},
	tenants.KindCanvassing:     {"canvassingSubmissions", "Canvassing submissions"},
	tenants.KindPhoneCallTask:  {"phoneCallTasks", "Phone call tasks"},
}

// kindConsents is the dashboard row of one kind: its granted (live) counts are the people who
// may be contacted.
func kindConsents(k tenants.Kind, st tenants.ConsentStats) web.KindConsents {
	return web.KindConsents{Key: kindNames[k][0], Label: kindNames[k][1], Live: int(st.PrimaryPurpose.Live()),
		Primary: int(st.PrimaryPurpose.Granted), Email: int(st.GeneralContactEmail.Granted), Phone: int(st.GeneralContactPhone.Granted),
		Anonymised: int(st.Anonymised)}
}

// submissionsChart is records created per UTC day and kind over the last trendDays days,
// today included.
func (h *handler) submissionsChart(ctx context.Context, tenantID string, now time.Time) (web.Chart, error) {
	from := tenants.Day(now).AddDate(0, 0, 1-trendDays)
	to := tenants.Day(now).AddDate(0, 0, 1)
	c := web.Chart{ID: "chart-submissions", Title: "Records received per day, last 30 days", Unit: [2]string{"record", "records"}}
	var series []map[time.Time]int64
	for _, k := range tenants.Kinds() {
		days, err := h.Store.Records.CreatedPerDay(ctx, tenantID, k, from, to)
		if err != nil {
			return c, err
		}
		series = append(series, days)
		c.Series = append(c.Series, web.ChartSeries{Name: kindNames[k][1]})
	}
	c.Columns = web.DayColumns(from, trendDays, 1, series...)
	return c, nil
}

// expiringChart is the live general-contact consents whose deadline falls in each of the
// coming weeks (the re-permission list's records), by channel.
func (h *handler) expiringChart(ctx context.Context, tenantID string, now time.Time) (web.Chart, error) {
	c := web.Chart{ID: "chart-expiring", Title: "General-contact consents expiring in the next 90 days, per week",
		Unit: [2]string{"consent", "consents"}}
	var series []map[time.Time]int64
	for _, ch := range []struct {
		consent tenants.ConsentName
		name    string
	}{{tenants.ConsentGeneralContactEmail, "By e-mail"}, {tenants.ConsentGeneralContactPhone, "By phone"}} {
		days, err := h.Store.Records.ExpiringPerDay(ctx, tenantID, ch.consent, now, now.AddDate(0, 0, expiringDays))
		if err != nil {
			return c, err
		}
		series = append(series, days)
		c.Series = append(c.Series, web.ChartSeries{Name: ch.name})
	}
	c.Columns = web.DayColumns(now, (expiringDays+6)/7, 7, series...)
	return c, nil
}
