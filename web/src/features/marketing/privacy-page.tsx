import { Link } from "react-router";
import { HQ_POSTAL_ADDRESS } from "@/components/company-info";
import { SupportEmailLink } from "@/components/support-email-link";
import { LegalDocument, type LegalSection } from "./legal-document";

// The Privacy Policy (spec, product-and-account sections 2, 4 and 9; DESIGN.md sections 4 and 5). What it
// promises must stay true of the server: hashed secrets, 24-hour batch file deletion, two-year retention.

// The installation's support address (GET /api/site).
const mail = <SupportEmailLink />;

const SECTIONS: readonly LegalSection[] = [
  {
    id: "information-we-collect",
    heading: "Information we collect",
    body: (
      <>
        <p>We collect only what we need to run the service and bill for it:</p>
        <ul>
          <li>
            <strong>Account information:</strong> your full name, email address, optional company name and password
            when you register or edit your profile, and your notification preferences.
          </li>
          <li>
            <strong>Sign-in devices:</strong> for sign-in alerts, a keyed hash of the browser family (such as
            &ldquo;Firefox on Linux&rdquo;) and network (the first three parts of an IPv4 address) of each browser
            you sign in from, so that a sign-in from a new one can be emailed to you. Neither is kept readable.
          </li>
          <li>
            <strong>Billing information:</strong> your plan, subscription status, credit balance and credit ledger,
            overage limit and invoices. Card payments are handled by our card payment processor; we receive only a
            reference to your payment method (such as the card brand and last four digits), never the full card
            number.
          </li>
          <li>
            <strong>Requests you make:</strong> the addresses you value and the people you look up, the results we
            return, the API key used, the endpoint, response status, response time, credits used, a request id, the
            time, and the IP address the request came from.
          </li>
          <li>
            <strong>Files you upload:</strong> the spreadsheets you send for batch valuation and the results we
            produce from them.
          </li>
          <li>
            <strong>Messages:</strong> what you send us through the contact form, the Support chat in your dashboard
            or by email, including your name, email address and company.
          </li>
          <li>
            <strong>Technical data:</strong> server logs with request ids, timestamps, IP addresses and browser user
            agents, used to keep the service secure and reliable.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "how-we-use-information",
    heading: "How we use information",
    body: (
      <>
        <p>We use the information above to:</p>
        <ul>
          <li>provide valuations, person lookups and batch jobs, and show you your history and usage statistics;</li>
          <li>authenticate you and your API keys, and enforce rate limits;</li>
          <li>charge credits, bill your subscription and any overage, and keep an accurate credit ledger;</li>
          <li>
            send the emails you need (password resets, a receipt for each payment, alerts of a sign-in from a new
            browser or network) and the ones you turn on in Settings (batch job results, billing notices, low balance
            alerts, the weekly usage report), each with a link that turns it off; we send no marketing email;
          </li>
          <li>answer support requests and contact-form messages;</li>
          <li>detect and prevent abuse, fraud and security incidents;</li>
          <li>measure and improve the accuracy and speed of the service, using aggregated data.</li>
        </ul>
        <p>We do not sell your personal information, and we do not use your data to advertise to you.</p>
      </>
    ),
  },
  {
    id: "property-and-person-data",
    heading: "Property and person data",
    body: (
      <p>
        Valuations are computed from property records and recorded sales, which come largely from public sources
        such as county assessor and recorder files. Person lookups return information about individuals drawn from
        public and commercially available records. If you believe a record about you is wrong, or you want to ask
        what we hold about you, write to {mail} and we will look into it. To have your record removed from the
        person-lookup directory and kept out of future imports,{" "}
        <Link to="/opt-out" className="text-primary underline underline-offset-4 hover:decoration-2">
          opt out of person lookup
        </Link>
        .
      </p>
    ),
  },
  {
    id: "security",
    heading: "How we protect your information",
    body: (
      <>
        <ul>
          <li>
            Passwords are stored only as salted hashes made with argon2id, a memory-hard algorithm designed for
            passwords. We cannot see or recover your password; we can only help you reset it.
          </li>
          <li>
            Session tokens and password reset tokens are stored only as hashes. API keys are stored as hashes for
            checking, and encrypted with a server secret so that you, and only you, can copy a key again from the
            dashboard.
          </li>
          <li>All connections to the service are encrypted in transit with TLS.</li>
          <li>
            Card numbers never reach our servers: they go directly to our card payment processor, which is certified
            to the PCI DSS standard.
          </li>
          <li>
            Access to production systems is limited to the staff who need it, and every request is logged with an id
            so that we can trace problems without logging secrets.
          </li>
        </ul>
        <p>
          No system is perfectly secure. If we learn of a breach that affects your personal information, we will
          notify you as the law requires.
        </p>
      </>
    ),
  },
  {
    id: "retention",
    heading: "How long we keep data",
    body: (
      <ul>
        <li>
          <strong>Batch files</strong> you upload are deleted within 24 hours. Download your results within that
          time.
        </li>
        <li>
          <strong>Request history and usage records</strong> are kept while your account is open, so that you can
          review and export them.
        </li>
        <li>
          <strong>Account data</strong> is kept for up to 2 years after you close your account, to handle billing
          questions, disputes and legal obligations, and is then deleted or anonymized.
        </li>
        <li>
          <strong>Invoices and payment records</strong> may be kept longer where tax or accounting law requires it.
        </li>
        <li>
          <strong>Server logs</strong> are kept for a limited period for security and troubleshooting.
        </li>
      </ul>
    ),
  },
  {
    id: "sharing",
    heading: "Who we share it with",
    body: (
      <>
        <p>We share personal information only:</p>
        <ul>
          <li>
            with service providers that process it on our behalf under contract, such as our card payment
            processor, email delivery and hosting providers;
          </li>
          <li>when the law requires it, such as a valid subpoena or court order;</li>
          <li>to protect the rights, property or safety of our users, the public or Valuator;</li>
          <li>
            with a buyer or successor if Valuator is involved in a merger or acquisition, under this same policy.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "cookies",
    heading: "Cookies and local storage",
    body: (
      <p>
        We do not use advertising or third-party tracking cookies. The web app keeps your session token in your
        browser's local storage so that you stay signed in, and remembers interface preferences there, such as
        which sidebar groups are open and the authorization you entered in the API documentation. Signing out
        removes the session token.
      </p>
    ),
  },
  {
    id: "your-rights",
    heading: "Your rights and choices",
    body: (
      <>
        <p>
          You can view and correct your profile on the Settings screen, export your request history, change your
          notification preferences, and close your account at any time. You may also ask us to give you a copy of
          your personal information, to correct it, or to delete it, by writing to {mail}. We answer within 30 days.
        </p>
        <p>
          If you live in California, the European Economic Area, the United Kingdom or another place with similar
          laws, you have the rights those laws give you, including the right not to be discriminated against for
          using them. We do not sell or share personal information for cross-context behavioral advertising.
        </p>
      </>
    ),
  },
  {
    id: "children",
    heading: "Children",
    body: (
      <p>
        The service is for businesses and professionals. It is not directed to children, and we do not knowingly
        collect personal information from anyone under 18.
      </p>
    ),
  },
  {
    id: "transfers",
    heading: "Where data is processed",
    body: (
      <p>
        The service is operated from the United States and your information is stored and processed there. If you
        use it from elsewhere, you consent to that transfer.
      </p>
    ),
  },
  {
    id: "changes",
    heading: "Changes to this policy",
    body: (
      <p>
        We may update this policy. When we make a material change we will email account holders and update the date
        at the top of this page before the change takes effect.
      </p>
    ),
  },
  {
    id: "contact",
    heading: "Contact us",
    body: (
      <p>
        Questions about privacy? Email {mail}, use our{" "}
        <Link to="/contact-us" className="text-primary underline underline-offset-4 hover:decoration-2">
          contact form
        </Link>
        , or write to {HQ_POSTAL_ADDRESS}.
      </p>
    ),
  },
];

export function PrivacyPage() {
  return (
    <LegalDocument
      title="Privacy Policy"
      intro={
        <p>
          This policy explains what information Valuator ("we", "us") collects when you use our website, dashboard
          and API (together, the "service"), how we use it, how we protect it and the choices you have. It is part
          of our{" "}
          <Link to="/terms" className="text-primary underline underline-offset-4 hover:decoration-2">
            Terms of Service
          </Link>
          .
        </p>
      }
      sections={SECTIONS}
    />
  );
}
