package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
	"github.com/golang-jwt/jwt/v5"
)

// The consent receipt in the JSON-LD profile of ISO/IEC TS 27560:2023 as the W3C Data Privacy
// Vocabulary writes it (dpv-27560#record; docs/API.md §12.3): DPV and Dublin Core term names,
// and the product's own terms under "cf:" where the profile has none.

// receiptContext maps the prefixes the receipt's keys use.
var receiptContext = map[string]string{
	"dpv": "https://w3id.org/dpv#",
	"pd":  "https://w3id.org/dpv/pd#",
	"loc": "https://w3id.org/dpv/loc#",
	"dct": "http://purl.org/dc/terms/",
	"cf":  "https://w3id.org/consentforms/ns#",
}

// ReceiptProfile is the profile receipts conform to.
const ReceiptProfile = "https://w3id.org/dpv/schema/iso-27560#record"

type receiptView struct {
	Context      map[string]string `json:"@context"`
	Type         string            `json:"@type"`
	ConformsTo   string            `json:"dct:conformsTo"`
	Version      string            `json:"cf:schemaVersion"`
	Identifier   string            `json:"dct:identifier"`
	ReceiptID    string            `json:"cf:receiptId"`
	Kind         tenants.Kind      `json:"cf:recordKind"`
	Created      time.Time         `json:"dct:created"`
	AnonymisedAt *time.Time        `json:"cf:anonymisedAt"`
	// Subject is absent once the record is anonymised.
	Subject      *receiptEntity       `json:"dpv:hasDataSubject,omitempty"`
	Controller   receiptEntity        `json:"dpv:hasDataController"`
	Jurisdiction []string             `json:"dpv:hasJurisdiction"`
	FormID       string               `json:"cf:formId"`
	Method       string               `json:"cf:collectionMethod"`
	Storage      []receiptStorage     `json:"dpv:hasStorageCondition"`
	PersonalData []string             `json:"dpv:hasPersonalData"`
	Recipients   []string             `json:"dpv:hasRecipient"`
	Withdrawal   *receiptWithdrawal   `json:"cf:withdrawalMethod"`
	Consents     []receiptConsentView `json:"dpv:hasConsent"`
	Events       []receiptEventView   `json:"cf:events"`
}

// receiptStorage is one storage condition: where the record is kept (dpv:StorageLocation), and
// for how long (dpv:StorageDuration: the retention interval and what it counts from).
type receiptStorage struct {
	Type  string `json:"@type"`
	Value string `json:"dct:description"`
	From  string `json:"cf:from,omitempty"`
}

// receiptWithdrawal is how the person withdraws: their withdrawal link.
type receiptWithdrawal struct {
	Type string `json:"@type"`
	URL  string `json:"dct:identifier"`
}

// receiptEventView is one change of a consent, oldest first.
type receiptEventView struct {
	Consent tenants.ConsentName `json:"cf:consent"`
	Type    string              `json:"cf:event"`
	At      time.Time           `json:"dct:date"`
	Actor   string              `json:"cf:actor"`
	Via     string              `json:"cf:via,omitempty"`
}

// receiptSchemaVersion is the version of this receipt's layout.
const receiptSchemaVersion = "2"

// personalDataTerms are the DPV personal-data categories of a receipt's categories.
var personalDataTerms = map[string]string{"email": "pd:EmailAddress", "phone": "pd:TelephoneNumber",
	"name": "pd:Name", "address": "pd:PhysicalAddress", "custom": "dpv:PersonalData"}

// collectionMethods name how each kind of record was collected.
var collectionMethods = map[tenants.Kind]string{tenants.KindFormSubmission: "web form",
	tenants.KindDigitisation: "paper form, digitised", tenants.KindCanvassing: "in person (canvassing)"}

type receiptEntity struct {
	Type       string `json:"@type"`
	Identifier string `json:"dct:identifier"`
	Title      string `json:"dct:title,omitempty"`
	// Contact and Address are the controller's (absent where the organisation set none).
	Contact string `json:"dpv:hasContact,omitempty"`
	Address string `json:"dpv:hasAddress,omitempty"`
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
	v := receiptView{Context: receiptContext, Type: "dpv:ConsentRecord", ConformsTo: ReceiptProfile, Version: receiptSchemaVersion,
		Identifier: r.RecordID, ReceiptID: r.ReceiptID, Kind: r.Kind, Created: r.CreatedAt, AnonymisedAt: r.AnonymisedAt, FormID: r.FormID,
		Controller: receiptEntity{Type: "dpv:DataController", Identifier: r.Controller.ID, Title: r.Controller.Name,
			Contact: r.Controller.Contact, Address: r.Controller.Address},
		Method: collectionMethods[r.Kind], Jurisdiction: []string{},
		Storage:      []receiptStorage{{Type: "dpv:StorageLocation", Value: "the organisation's consentforms service"}},
		PersonalData: make([]string, 0, len(r.Categories)), Recipients: append(make([]string, 0, len(r.Recipients)), r.Recipients...),
		Consents: make([]receiptConsentView, 0, len(r.Consents)), Events: make([]receiptEventView, 0, len(r.Events))}
	if r.Subject != "" {
		v.Subject = &receiptEntity{Type: "dpv:DataSubject", Identifier: r.Subject}
	}
	if r.Jurisdiction != "" {
		v.Jurisdiction = append(v.Jurisdiction, "loc:"+r.Jurisdiction)
	}
	if r.Retention != "" {
		v.Storage = append(v.Storage, receiptStorage{Type: "dpv:StorageDuration", Value: r.Retention, From: r.RetentionFrom})
	} else {
		v.Storage = append(v.Storage, receiptStorage{Type: "dpv:StorageDuration", Value: "until the consents are withdrawn or the person's data is erased"})
	}
	if r.WithdrawURL != "" {
		v.Withdrawal = &receiptWithdrawal{Type: "cf:WithdrawalLink", URL: r.WithdrawURL}
	}
	for _, c := range r.Categories {
		v.PersonalData = append(v.PersonalData, personalDataTerms[c])
	}
	for _, e := range r.Events {
		v.Events = append(v.Events, receiptEventView{Consent: e.Consent, Type: e.Type, At: e.At.Truncate(time.Second), Actor: e.Actor, Via: e.Via})
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

// getReceipt is GET /api/v1/{kind path}/{id}/receipt (docs/API.md §12.3): the receipt of the
// tenant's record of kind, as JSON-LD, or with ?format=jws signed with the tenant's newest key
// (a compact JWS, EdDSA, application/jose).
func (s *server) getReceipt(kind tenants.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		tenantID := authOf(c).tenant.ID
		r, err := s.Rights.ReceiptOf(c.UserContext(), tenantID, kind, c.Params("id"))
		if errors.Is(err, tenants.ErrNotFound) {
			return notFound("No record of this kind with this id.")
		}
		if err != nil {
			return err
		}
		switch c.Query("format") {
		case "", "json":
			return c.JSON(viewReceipt(r))
		case "jws":
		default:
			return validation("format is json (the default) or jws.", "format")
		}
		if s.ReceiptKeys == nil {
			return notFound("Signed receipts are not set up on this server.")
		}
		key, err := s.ReceiptKeys.Signing(c.UserContext(), tenantID)
		if err != nil {
			return err
		}
		signed, err := signReceipt(viewReceipt(r), key)
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, "application/jose")
		return c.SendString(signed)
	}
}

// signReceipt is the compact JWS (EdDSA) of the receipt's JSON, its kid the key's id.
func signReceipt(v receiptView, key ops.ReceiptKey) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	claims := jwt.MapClaims{}
	if err := json.Unmarshal(raw, &claims); err != nil {
		return "", err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["kid"] = key.ID
	return tok.SignedString(key.Private)
}

// jwk is one public key of a JWKS (RFC 8037: Ed25519 as an OKP key).
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
}

// jwks is GET /.well-known/jwks.json?tenant={tenant_id}: the tenant's receipt keys, the retired
// ones too, so that every receipt it ever signed still verifies. No credentials.
func (s *server) jwks(c *fiber.Ctx) error {
	tenantID := c.Query("tenant")
	if _, err := s.Tenants.Get(c.UserContext(), tenantID); errors.Is(err, tenants.ErrNotFound) || tenantID == "" {
		return notFound("No such organisation.")
	} else if err != nil {
		return err
	}
	out := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{}}
	if s.ReceiptKeys != nil {
		keys, err := s.ReceiptKeys.All(c.UserContext(), tenantID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			out.Keys = append(out.Keys, jwk{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(k.Public), Kid: k.ID, Use: "sig", Alg: "EdDSA"})
		}
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.JSON(out)
}
