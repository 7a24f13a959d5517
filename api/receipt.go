package api

import (
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// The consent receipt in the JSON-LD profile of ISO/IEC TS 27560:2023 as the W3C Data Privacy
// Vocabulary writes it (dpv-27560#record; docs/API.md §12.3): DPV and Dublin Core term names,
// and the product's own terms under "cf:" where the profile has none.

// receiptContext maps the prefixes the receipt's keys use.
var receiptContext = map[string]string{
	"dpv": "https://w3id.org/dpv#",
	"dct": "http://purl.org/dc/terms/",
	"cf":  "https://w3id.org/consentforms/ns#",
}

// ReceiptProfile is the profile receipts conform to.
const ReceiptProfile = "https://w3id.org/dpv/schema/dpv-27560#record"

type receiptView struct {
	Context      map[string]string `json:"@context"`
	Type         string            `json:"@type"`
	ConformsTo   string            `json:"dct:conformsTo"`
	Identifier   string            `json:"dct:identifier"`
	Created      time.Time         `json:"dct:created"`
	AnonymisedAt *time.Time        `json:"cf:anonymisedAt"`
	// Subject is absent once the record is anonymised.
	Subject    *receiptEntity       `json:"dpv:hasDataSubject,omitempty"`
	Controller receiptEntity        `json:"dpv:hasDataController"`
	FormID     string               `json:"cf:formId"`
	Consents   []receiptConsentView `json:"dpv:hasConsent"`
}

type receiptEntity struct {
	Type       string `json:"@type"`
	Identifier string `json:"dct:identifier"`
	Title      string `json:"dct:title,omitempty"`
}

type receiptConsentView struct {
	Type             string                `json:"@type"`
	Identifier       tenants.ConsentName   `json:"dct:identifier"`
	Purpose          receiptPurpose        `json:"dpv:hasPurpose"`
	LegalBasis       string                `json:"dpv:hasLegalBasis"`
	ConsentStatus    string                `json:"dpv:hasConsentStatus"`
	Status           tenants.ConsentStatus `json:"cf:status"`
	IndicatedAt      *time.Time            `json:"dpv:isIndicatedAtTime"`
	Expiry           *time.Time            `json:"dpv:hasExpiryTime"`
	Withdrawn        *time.Time            `json:"dpv:hasWithdrawalTime"`
	IndicatedBy      string                `json:"dpv:isIndicatedBy"`
	IndicationMethod *string               `json:"dpv:hasIndicationMethod"`
	Notice           *receiptNotice        `json:"dpv:hasNotice"`
	Proof            receiptProof          `json:"cf:proof"`
}

type receiptPurpose struct {
	Type        string              `json:"@type"`
	Identifier  tenants.ConsentName `json:"dct:identifier"`
	Description string              `json:"dct:description"`
}

type receiptNotice struct {
	Type        string    `json:"@type"`
	Identifier  string    `json:"dct:identifier"`
	Language    string    `json:"dct:language"`
	Issued      time.Time `json:"dct:issued"`
	Description string    `json:"dct:description"`
	SHA256      string    `json:"cf:sha256"`
}

type receiptProof struct {
	Source    *string `json:"source"`
	IPAddress *string `json:"ipAddress"`
	Timestamp *string `json:"timestamp"`
	// Confirmation is the double opt-in's proof: when the person confirmed, from which address,
	// with which user agent (the last two gone after erasure); absent when none was needed.
	Confirmation *receiptConfirmation `json:"confirmation,omitempty"`
}

type receiptConfirmation struct {
	At        time.Time `json:"at"`
	IPAddress *string   `json:"ipAddress"`
	UserAgent *string   `json:"userAgent"`
}

// purposes describe each consent's purpose in the receipt.
var purposes = map[tenants.ConsentName]string{
	tenants.ConsentPrimaryPurpose:      "The purpose of the form the person submitted.",
	tenants.ConsentGeneralContactEmail: "General contact by e-mail.",
	tenants.ConsentGeneralContactPhone: "General contact by phone.",
}

// dpvStatus is each status's DPV consent status; not_granted is unknown, since a record does
// not say whether a box was left unticked or not shown.
var dpvStatus = map[tenants.ConsentStatus]string{
	tenants.StatusGranted:    "dpv:ConsentGiven",
	tenants.StatusExpired:    "dpv:ConsentExpired",
	tenants.StatusRevoked:    "dpv:ConsentWithdrawn",
	tenants.StatusNotGranted: "dpv:ConsentUnknown",
}

func viewReceipt(r ops.Receipt) receiptView {
	v := receiptView{Context: receiptContext, Type: "dpv:ConsentRecord", ConformsTo: ReceiptProfile, Identifier: r.RecordID,
		Created: r.CreatedAt, AnonymisedAt: r.AnonymisedAt, FormID: r.FormID,
		Controller: receiptEntity{Type: "dpv:DataController", Identifier: r.Controller.ID, Title: r.Controller.Name},
		Consents:   make([]receiptConsentView, 0, len(r.Consents))}
	if r.Subject != "" {
		v.Subject = &receiptEntity{Type: "dpv:DataSubject", Identifier: r.Subject}
	}
	for _, c := range r.Consents {
		status := dpvStatus[c.Status]
		cv := receiptConsentView{Type: "dpv:Consent", Identifier: c.Name,
			Purpose:    receiptPurpose{Type: "dpv:Purpose", Identifier: c.Name, Description: purposes[c.Name]},
			LegalBasis: "dpv:Consent", ConsentStatus: status, Status: c.Status, IndicatedAt: c.GrantedAt, Expiry: c.Deadline,
			Withdrawn: c.RevokedAt, IndicatedBy: "dpv:DataSubject", IndicationMethod: c.Source,
			Proof: receiptProof{Source: c.Source, IPAddress: c.IPAddress, Timestamp: c.Timestamp}}
		if cf := c.Confirmation; cf != nil {
			cv.Proof.Confirmation = &receiptConfirmation{At: cf.At.UTC().Truncate(time.Second), IPAddress: cf.IPAddress, UserAgent: cf.UserAgent}
		}
		if n := c.Notice; n != nil {
			cv.Notice = &receiptNotice{Type: "dpv:ConsentNotice", Identifier: n.ID, Language: n.Language,
				Issued: n.PublishedAt.UTC(), Description: n.Text, SHA256: n.Hash}
		}
		v.Consents = append(v.Consents, cv)
	}
	return v
}

// getReceipt is GET /api/v1/forms/submissions/{submission_id}/receipt (docs/API.md §12.3).
func (s *server) getReceipt(c *fiber.Ctx) error {
	r, err := s.Rights.Receipt(c.UserContext(), authOf(c).tenant.ID, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return notFound("No submission with this id.")
	}
	if err != nil {
		return err
	}
	return c.JSON(viewReceipt(r))
}
