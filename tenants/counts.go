package tenants

// Counts counts records per kind, under the names of docs/API.md §5.4.
type Counts struct {
	FormSubmissions         int `json:"formSubmissions"`
	DigitisationSubmissions int `json:"digitisationSubmissions"`
	CanvassingSubmissions   int `json:"canvassingSubmissions"`
	PhoneCallTasks          int `json:"phoneCallTasks"`
}

// of returns the counter of kind, nil for an unknown kind.
func (c *Counts) of(kind Kind) *int {
	switch kind {
	case KindFormSubmission:
		return &c.FormSubmissions
	case KindDigitisation:
		return &c.DigitisationSubmissions
	case KindCanvassing:
		return &c.CanvassingSubmissions
	case KindPhoneCallTask:
		return &c.PhoneCallTasks
	}
	return nil
}

// Add counts n more records of kind; an unknown kind is not counted.
func (c *Counts) Add(kind Kind, n int) {
	if p := c.of(kind); p != nil {
		*p += n
	}
}

// Plus is the sum of c and o, kind by kind.
func (c Counts) Plus(o Counts) Counts {
	return Counts{c.FormSubmissions + o.FormSubmissions, c.DigitisationSubmissions + o.DigitisationSubmissions,
		c.CanvassingSubmissions + o.CanvassingSubmissions, c.PhoneCallTasks + o.PhoneCallTasks}
}

// Total is the sum over kinds.
func (c Counts) Total() int {
	return c.FormSubmissions + c.DigitisationSubmissions + c.CanvassingSubmissions + c.PhoneCallTasks
}

// countNames are the names of docs/API.md §5.4 that Map and CountsFrom key the counts by.
var countNames = [...]struct {
	kind Kind
	name string
}{
	{KindFormSubmission, "formSubmissions"}, {KindDigitisation, "digitisationSubmissions"},
	{KindCanvassing, "canvassingSubmissions"}, {KindPhoneCallTask, "phoneCallTasks"},
}

// Map is the counts keyed by the names of docs/API.md §5.4, as the audit log and a bulk
// erasure's stored progress keep them.
func (c Counts) Map() map[string]int {
	m := make(map[string]int, len(countNames))
	for _, n := range countNames {
		m[n.name] = *c.of(n.kind)
	}
	return m
}

// CountsFrom reads counts keyed as Map keys them.
func CountsFrom(m map[string]int) Counts {
	var c Counts
	for _, n := range countNames {
		c.Add(n.kind, m[n.name])
	}
	return c
}

// CountKinds counts records per kind.
func CountKinds(recs []Record) Counts {
	var c Counts
	for _, r := range recs {
		c.Add(r.Kind, 1)
	}
	return c
}

// StatusCounts counts one consent's records per status, as read at a moment (deadlines applied).
type StatusCounts struct {
	Granted    int64
	Expired    int64
	Revoked    int64
	NotGranted int64
}

// Add counts n more records with status; a status not of ConsentStatuses counts as not granted,
// as Consent.StatusAt reads it.
func (s *StatusCounts) Add(status ConsentStatus, n int64) {
	switch status {
	case StatusGranted:
		s.Granted += n
	case StatusExpired:
		s.Expired += n
	case StatusRevoked:
		s.Revoked += n
	default:
		s.NotGranted += n
	}
}

// Of returns the count of status.
func (s StatusCounts) Of(status ConsentStatus) int64 {
	switch status {
	case StatusGranted:
		return s.Granted
	case StatusExpired:
		return s.Expired
	case StatusRevoked:
		return s.Revoked
	}
	return s.NotGranted
}

// ConsentStats counts a tenant's records per consent and status (Records.ConsentStats). The
// status counts are of live records only: an anonymised record is nobody's any more, whatever
// its consents said, so it is counted once, as Anonymised, and a granted count is the number
// of people who may be contacted.
type ConsentStats struct {
	PrimaryPurpose      StatusCounts
	GeneralContactEmail StatusCounts
	GeneralContactPhone StatusCounts
	Anonymised          int64
}

// Of returns the counts of the consent called name, nil for an unknown name.
func (c *ConsentStats) Of(name ConsentName) *StatusCounts {
	if i := consentIndex(name); i >= 0 {
		return [...]*StatusCounts{&c.PrimaryPurpose, &c.GeneralContactEmail, &c.GeneralContactPhone}[i]
	}
	return nil
}

// Live is the number of live (not anonymised) records counted.
func (s StatusCounts) Live() int64 { return s.Granted + s.Expired + s.Revoked + s.NotGranted }

// Records is the number of records counted, live and anonymised.
func (c ConsentStats) Records() int64 { return c.PrimaryPurpose.Live() + c.Anonymised }

// Plus is the sum of c and o, count by count.
func (c ConsentStats) Plus(o ConsentStats) ConsentStats {
	add := func(a, b StatusCounts) StatusCounts {
		return StatusCounts{a.Granted + b.Granted, a.Expired + b.Expired, a.Revoked + b.Revoked, a.NotGranted + b.NotGranted}
	}
	return ConsentStats{add(c.PrimaryPurpose, o.PrimaryPurpose), add(c.GeneralContactEmail, o.GeneralContactEmail),
		add(c.GeneralContactPhone, o.GeneralContactPhone), c.Anonymised + o.Anonymised}
}
