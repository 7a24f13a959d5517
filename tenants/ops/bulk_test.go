package ops_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants/ops"
)

func TestParseBulk(t *testing.T) {
	in, err := ops.ParseBulk("email,phone\n\"Ann@Example.org\",+44 7700 900001\nann@example.org;\t+447700900001\n\nnonsense\n0123\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(in.Emails, " ") != "ann@example.org" || strings.Join(in.Phones, " ") != "+447700900001" ||
		in.InvalidCount != 2 || strings.Join(in.Invalid, " ") != "nonsense 0123" {
		t.Errorf("ParseBulk = %+v", in)
	}
	if _, err := ops.ParseBulk("email\n\n", ""); !errors.Is(err, ops.ErrNothingInBulk) {
		t.Errorf("a header alone = %v", err)
	}
	var b strings.Builder
	for i := range ops.MaxBulkIdentifiers + 1 {
		b.WriteString("p" + strconv.Itoa(i) + "@example.org\n")
	}
	if _, err := ops.ParseBulk(b.String(), ""); !errors.Is(err, ops.ErrTooManyInBulk) {
		t.Errorf("10,001 identifiers = %v", err)
	}
}
