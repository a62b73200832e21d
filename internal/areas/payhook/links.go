package payhook

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// A plan's payment link is the processor's page where a trainee pays for
// it (a Stripe Payment Link). The drafted payment reminder carries it with
// her id (PersonalLink), so the payment's event names her.

// PaymentLink is a plan's payment link.
type PaymentLink struct {
	ProductID string `json:"productId"`
	URL       string `json:"url,omitempty"`
}

type paymentLinkInput struct {
	URL string `json:"url" jsonschema:"The processor's page where a trainee pays for the plan (https://buy.stripe.com/…)." lane:"minLength=1,maxLength=500"`
}

func (a *Area) linkRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/products/{id}/payment-link", "The plan's payment link: where a trainee pays for it, which the drafted payment reminder carries.", a.getLink)
	lane.Add(rs, "PUT", "/products/{id}/payment-link", "Set the plan's payment link (https), which the drafted payment reminder (draft_message, payment_due) carries with the trainee's id, so her payment's event names her.", a.putLink, lane.Admin())
	lane.Add(rs, "DELETE", "/products/{id}/payment-link", "Remove the plan's payment link.", a.deleteLink, lane.Admin())
}

func plan(c *lane.Call) (domain.Product, error) {
	return lane.Lookup(c.Ctx, ids.Product, c.ID(), c.Studio().GetProduct)
}

func (a *Area) getLink(c *lane.Call, _ *lane.NoInput) (PaymentLink, error) {
	p, err := plan(c)
	if err != nil {
		return PaymentLink{}, err
	}
	links, err := c.DB().PaymentHooks().PaymentLinks(c.Ctx, c.P.StudioID, []string{p.ID})
	return PaymentLink{ProductID: p.ID, URL: links[p.ID]}, err
}

func (a *Area) putLink(c *lane.Call, in *paymentLinkInput) (PaymentLink, error) {
	p, err := plan(c)
	if err != nil {
		return PaymentLink{}, err
	}
	u, err := CheckLink(in.URL)
	if err != nil {
		return PaymentLink{}, lane.InvalidField("url", err.Error())
	}
	if err := c.DB().PaymentHooks().PutPaymentLink(c.Ctx, c.P.StudioID, p.ID, u, c.Now()); err != nil {
		return PaymentLink{}, err
	}
	return PaymentLink{ProductID: p.ID, URL: u}, nil
}

func (a *Area) deleteLink(c *lane.Call, _ *lane.NoInput) (PaymentLink, error) {
	p, err := plan(c)
	if err != nil {
		return PaymentLink{}, err
	}
	gone, err := c.DB().PaymentHooks().DeletePaymentLink(c.Ctx, c.P.StudioID, p.ID)
	if err == nil && !gone {
		err = lane.Conflict(fmt.Sprintf("Plan %s has no payment link to remove.", p.ID))
	}
	return PaymentLink{ProductID: p.ID}, err
}

// CheckLink checks a payment link: an https URL with a host, no user or
// password in it, at most 500 bytes. It answers the URL trimmed.
func CheckLink(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || text.Problem(s) != "" || strings.ContainsAny(s, " \t\r\n") {
		return "", errors.New("url must be an https address of the processor's payment page, such as https://buy.stripe.com/…, without spaces, credentials or a #fragment")
	}
	return s, nil
}

// PersonalLink is a plan's payment link for one trainee: a Stripe link
// carries her id as client_reference_id (the Checkout session's, which the
// webhook matches her by); any other processor's link is as set.
func PersonalLink(link, traineeID string) string {
	u, err := url.Parse(link)
	if err != nil || !(u.Host == "stripe.com" || strings.HasSuffix(u.Host, ".stripe.com")) {
		return link
	}
	q := u.Query()
	q.Set("client_reference_id", traineeID)
	u.RawQuery = q.Encode()
	return u.String()
}

// TraineeLink is the payment link of the plan of the trainee's newest
// subscription that is not cancelled, for her; "" when that plan has none.
func TraineeLink(c *lane.Call, ss store.StudioStore, traineeID string) (string, error) {
	subs, err := ss.ListSubscriptions(c.Ctx, traineeID)
	if err != nil {
		return "", err
	}
	var product string
	for _, s := range subs { // oldest first
		if s.Status != domain.SubCancelled {
			product = s.ProductID
		}
	}
	if product == "" {
		return "", nil
	}
	links, err := c.DB().PaymentHooks().PaymentLinks(c.Ctx, c.P.StudioID, []string{product})
	if err != nil || links[product] == "" {
		return "", err
	}
	return PersonalLink(links[product], traineeID), nil
}
