import { describe, expect, it } from "vitest";
import { SERVICE_LABELS, serviceLabel, type ApiService } from "./services";

describe("serviceLabel", () => {
  it("names every usage service one way, for History and Reporting alike", () => {
    expect(SERVICE_LABELS).toEqual({
      property_valuation: "Property valuation",
      person_lookup: "Person lookup",
      batch: "Batch upload",
      market_statistics: "Market statistics",
    });
    expect(serviceLabel("batch")).toBe("Batch upload");
  });

  it("shows a service this build does not know as the server wrote it", () => {
    expect(serviceLabel("new_service" as ApiService)).toBe("new_service");
  });
});
