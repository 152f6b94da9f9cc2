import { Link } from "react-router";
import { HQ_POSTAL_ADDRESS } from "@/components/company-info";
import { SupportEmailLink } from "@/components/support-email-link";
import { LegalDocument, type LegalSection } from "./legal-document";
import { FREE_CREDITS, OVERAGE_PER_CREDIT_USD, PAID_PLANS, formatNumber } from "./plans";

// The Terms of Service (spec, product-and-account sections 2, 4 and 9; DESIGN.md section 5). The billing rules
// here are the ones the server enforces: credits per result, overage up to the user's limit, one-period
// rollover, immediate prorated upgrades, downgrades and cancellations at the end of the period.

const OVERAGE = `$${OVERAGE_PER_CREDIT_USD.toFixed(2)}`;

const link = "text-primary underline underline-offset-4 hover:decoration-2";

// The installation's support address (GET /api/site).
const mail = <SupportEmailLink className={link} />;

const planList = PAID_PLANS.map((p) => `${p.name} ($${p.priceUsd} a month, ${formatNumber(p.credits)} credits)`).join(
  ", ",
);

const SECTIONS: readonly LegalSection[] = [
  {
    id: "acceptance",
    heading: "Acceptance of these terms",
    body: (
      <p>
        By creating an account or using the Valuator website, dashboard or API (the "service"), you agree to these
        Terms of Service and to our{" "}
        <Link to="/privacy" className={link}>
          Privacy Policy
        </Link>
        . If you use the service for a company, you accept these terms for it and confirm you may do so. If you do
        not agree, do not use the service.
      </p>
    ),
  },
  {
    id: "service",
    heading: "The service",
    body: (
      <>
        <p>
          Valuator provides automated property valuations, person lookups and batch valuation of uploaded files for
          properties in the United States, through a REST API and a web dashboard, together with request history,
          usage reporting and API key management.
        </p>
        <p>
          <strong>Valuations are estimates, not appraisals.</strong> They are produced by automated valuation models
          from recorded sales and property records, which may be incomplete or out of date. A valuation is not an
          appraisal by a licensed appraiser, not a broker price opinion, and not an offer to buy or sell. Each
          valuation carries a confidence score (1 minus its forecast standard deviation: about two in three comparable
          estimates land within that share of the sale price) and a value range; use them, and your own judgment,
          before relying on a value. A valuation too uncertain to be useful is refused and not charged.
        </p>
      </>
    ),
  },
  {
    id: "accounts",
    heading: "Accounts and API keys",
    body: (
      <ul>
        <li>You must be at least 18 and give accurate information when you register, and keep it up to date.</li>
        <li>
          You are responsible for everything done with your account and your API keys. Keep your password and keys
          secret, do not embed keys in code that others can read, and revoke a key at once if it may have leaked.
        </li>
        <li>One person or organization may not open several accounts to obtain extra free credits.</li>
      </ul>
    ),
  },
  {
    id: "plans-and-credits",
    heading: "Plans, credits and payment",
    body: (
      <>
        <ul>
          <li>
            <strong>Free tier.</strong> New accounts receive {FREE_CREDITS} free credits, and the Free plan receives{" "}
            {FREE_CREDITS} credits each month, with no card needed. The Free plan has no overage.
          </li>
          <li>
            <strong>Paid plans.</strong> Paid plans are monthly subscriptions: {planList}. Fees are charged in US
            dollars at the start of each billing period, plus any applicable taxes.
          </li>
          <li>
            <strong>What credits buy.</strong> A property valuation costs 1 credit, a person lookup 5 credits, and a
            batch valuation 1 credit for each property valued. Only results are charged: a lookup that finds
            nothing, a request rejected for invalid input, and a failure on our side cost nothing.
          </li>
          <li>
            <strong>Overage.</strong> On a paid plan, usage beyond your available credits is billed at {OVERAGE} per
            credit, up to the overage limit you set on the Billing screen (no
            limit if you leave it empty), and is charged with your next invoice. When the limit is reached, requests
            that need credits are refused with status 402 until the next period or until you raise the limit.
          </li>
          <li>
            <strong>Rollover.</strong> Plan credits do not expire during an active subscription within the period
            they are granted for. Unused plan credits roll over into the next billing period, for one billing period
            only, and expire at the end of it if still unused.
          </li>
          <li>
            <strong>Payment.</strong> Payments are processed by our card payment processor. We never see or store
            your full card number. You authorize us to charge your payment method for subscription fees, prorated
            charges and overage. If a payment fails we may suspend paid features until it succeeds.
          </li>
          <li>
            <strong>Custom pricing.</strong> Volumes above 50,000 credits a month, and custom overage rates, are
            available under a separate written agreement, which prevails over these terms where they differ.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "plan-changes",
    heading: "Plan changes, cancellation and refunds",
    body: (
      <ul>
        <li>
          <strong>Upgrades</strong> take effect immediately. You are charged a prorated amount for the remainder of
          the current billing period.
        </li>
        <li>
          <strong>Downgrades</strong> take effect at the end of the current billing period; until then you keep your
          current plan and its limits.
        </li>
        <li>
          <strong>Cancellation</strong> takes effect at the end of the current billing period. You can cancel at any
          time from the Billing screen.
        </li>
        <li>
          <strong>Credits are forfeited</strong> when a cancellation takes effect or when your account is terminated.
          Credits have no cash value and cannot be transferred or refunded.
        </li>
        <li>
          Fees already paid are not refunded for partial periods or unused credits, except where the law requires
          it or we have failed to meet the service level below.
        </li>
      </ul>
    ),
  },
  {
    id: "acceptable-use",
    heading: "Acceptable use",
    body: (
      <>
        <p>You agree not to:</p>
        <ul>
          <li>
            scrape the service, harvest its data in bulk, or use it to build, train or supply a competing property
            or people database;
          </li>
          <li>
            exceed or work around the rate limits, for example by spreading traffic across several keys or accounts
            to avoid them;
          </li>
          <li>resell or redistribute raw results as a data feed without a written agreement with us;</li>
          <li>
            probe, scan or test the vulnerability of the service, or try to reach data or accounts that are not
            yours;
          </li>
          <li>send malware, or traffic meant to disrupt or overload the service;</li>
          <li>
            use person lookup results to stalk, harass or discriminate against anyone, or as a consumer report to
            decide a person's eligibility for credit, insurance, employment or housing;
          </li>
          <li>
            use the service in violation of any law, including fair housing, fair lending and privacy laws.
          </li>
        </ul>
        <p>We may suspend keys or accounts that break these rules, and will tell you why unless the law forbids it.</p>
      </>
    ),
  },
  {
    id: "rate-limits",
    heading: "API usage and rate limits",
    body: (
      <p>
        API requests are limited per API key per minute: 60 on the Free and Basic plans, 120 on Professional, and no
        plan cap on Enterprise. Each key may also carry its own lower limit. Requests above the limit are refused
        with status 429 and a Retry-After header. Batch uploads are limited to 100 properties on Free, 1,000 on
        Basic, 10,000 on Professional and 50,000 on Enterprise, in files up to 50 MB.
      </p>
    ),
  },
  {
    id: "service-level",
    heading: "Service level",
    body: (
      <p>
        We aim for 99.9% monthly availability of the API for paid plans (our SLA). Scheduled maintenance announced at
        least 48 hours ahead, problems caused by your own systems or network, and events beyond our reasonable
        control are excluded. If we miss the SLA in a calendar month, tell us within 30 days and we will credit your
        account in proportion to the downtime. That credit is your sole remedy for unavailability.
      </p>
    ),
  },
  {
    id: "your-data",
    heading: "Your data",
    body: (
      <>
        <p>
          You keep all rights to the data you send us. You give us permission to process it only to provide the
          service, as described in the Privacy Policy. Batch files you upload are deleted within 24 hours, so
          download your results promptly. Account data is kept for up to 2 years after your account is closed, and
          then deleted or anonymized.
        </p>
        <p>
          You may use the results you receive in your own business and in products you offer to your customers,
          subject to the acceptable use rules above.
        </p>
      </>
    ),
  },
  {
    id: "intellectual-property",
    heading: "Intellectual property",
    body: (
      <p>
        The service, its software, models, documentation and brand belong to Valuator and its licensors. These terms
        give you a limited, non-exclusive, non-transferable right to use the service while your account is in good
        standing; they do not transfer any ownership. Feedback you send us may be used without obligation to you.
      </p>
    ),
  },
  {
    id: "disclaimers",
    heading: "Disclaimers",
    body: (
      <p>
        Except as expressly stated in these terms, the service and all results are provided "as is" and "as
        available", without warranties of any kind, express or implied, including merchantability, fitness for a
        particular purpose, accuracy and non-infringement. We do not warrant that any valuation matches the price a
        property will sell for.
      </p>
    ),
  },
  {
    id: "liability",
    heading: "Limitation of liability",
    body: (
      <p>
        To the extent the law allows, Valuator is not liable for indirect, incidental, special, consequential or
        punitive damages, or for lost profits, revenue or data, arising from the service or from decisions made using
        its results. Our total liability for any claim is limited to the fees you paid us in the 12 months before the
        claim arose.
      </p>
    ),
  },
  {
    id: "indemnity",
    heading: "Indemnification",
    body: (
      <p>
        You will defend and indemnify Valuator against claims by third parties arising from your use of the service in
        breach of these terms or of the law.
      </p>
    ),
  },
  {
    id: "termination",
    heading: "Termination",
    body: (
      <p>
        You may close your account at any time. We may suspend or terminate your account if you materially breach
        these terms, fail to pay, or if the law requires it; where practical we will warn you first and give you a
        chance to fix the problem. Credits are forfeited on termination. Sections that by their nature should survive
        termination (payment owed, disclaimers, limitation of liability, indemnification) survive it.
      </p>
    ),
  },
  {
    id: "changes",
    heading: "Changes to these terms",
    body: (
      <p>
        We may update these terms. We will email account holders about material changes at least 30 days before they
        take effect and update the date at the top of this page. If you keep using the service after a change takes
        effect, you accept the new terms; if you do not agree, you may cancel.
      </p>
    ),
  },
  {
    id: "law",
    heading: "Governing law",
    body: (
      <p>
        These terms are governed by the laws of the State of California, without regard to its conflict of laws
        rules. Disputes will be heard in the state or federal courts located in San Francisco County, California,
        and you and we consent to their jurisdiction.
      </p>
    ),
  },
  {
    id: "contact",
    heading: "Contact",
    body: (
      <p>
        Questions about these terms? Email {mail}, use our{" "}
        <Link to="/contact-us" className={link}>
          contact form
        </Link>
        , or write to {HQ_POSTAL_ADDRESS}.
      </p>
    ),
  },
];

export function TermsPage() {
  return (
    <LegalDocument
      title="Terms of Service"
      intro={
        <p>
          These terms govern your use of Valuator. Please read them carefully: they explain how credits, plans and
          billing work, what you may and may not do with the service, and the limits of our responsibility.
        </p>
      }
      sections={SECTIONS}
    />
  );
}
