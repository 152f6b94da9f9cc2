package person

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// Fictional names for demo residents. They are common enough to look real and are paired at random, so no
// combination is meant to be anyone.
var (
	// Given names with common nicknames (Robert/Bob, Elizabeth/Liz, ...), so the demo shows nickname matching;
	// the gender follows the list a name is drawn from.
	demoFemale = []string{"Elizabeth", "Katherine", "Margaret", "Jennifer", "Patricia", "Victoria", "Samantha", "Susan"}
	demoMale   = []string{"Robert", "William", "Jonathan", "Theodore", "Benjamin", "Nicholas", "Michael", "Christopher"}
	demoLast   = []string{"Ashdown", "Brightwater", "Calloway", "Dunmore", "Ellery", "Fairbank", "Glenhaven",
		"Holloway", "Ivers", "Juniper", "Kestrel", "Larkspur", "Merriweather", "Northcott", "Oakridge", "Pembrook"}
	demoRelations = []string{"spouse", "partner", "sibling", "parent", "child", "roommate"}
	demoAges      = []string{"25-34", "35-44", "45-54", "55-64", "65+"}
	demoLineTypes = []string{"mobile", "landline", "voip"}
)

// DemoResidents returns one fictional resident for each address, the same for the same address and seed
// whatever the other addresses, so a demo home keeps its resident as the demo set grows. Phone numbers are in
// 555-0100 to 555-0199, which the North American plan reserves for fiction; emails are at example.com, which
// is reserved for examples; Source is "demo" so no one mistakes them for data.
func DemoResidents(addrs []Address, seed int64) []Candidate {
	out := make([]Candidate, 0, len(addrs))
	for _, a := range addrs {
		h := fnv.New64a()
		p := placeOf(a.StreetLine1, a.StreetLine2, a.City, a.StateCode, a.PostalCode)
		fmt.Fprintf(h, "%s|%s|%s|%s|%s", p.street, p.unit, p.city, p.state, p.zip)
		rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))

		gender, names := "female", demoFemale
		if rng.IntN(2) == 1 {
			gender, names = "male", demoMale
		}
		first, last := names[rng.IntN(len(names))], demoLast[rng.IntN(len(demoLast))]
		// Area codes are drawn from real ones so the number looks right; 555-01xx makes it unreachable.
		area := []string{"212", "312", "415", "512", "617", "916", "206", "303"}[rng.IntN(8)]
		c := Candidate{FirstName: first, LastName: last}
		c.Name = first + " " + last
		c.AlternateNames = []string{}
		c.AgeRange = demoAges[rng.IntN(len(demoAges))]
		c.Gender = gender
		c.CurrentAddresses = []Address{a}
		c.HistoricalAddrs = []Address{}
		c.Phones = []Phone{{PhoneNumber: fmt.Sprintf("%s55501%02d", area, rng.IntN(100)),
			LineType: demoLineTypes[rng.IntN(len(demoLineTypes))]}}
		c.Emails = []string{strings.ToLower(first+"."+last) + "@example.com"}
		rel := demoRelations[rng.IntN(len(demoRelations))]
		others := append(append([]string(nil), demoFemale...), demoMale...)
		af := others[rng.IntN(len(others))]
		if af == first {
			af = others[(rng.IntN(len(others)-1)+1+indexOf(others, first))%len(others)]
		}
		al := last
		if rel == "roommate" || rel == "partner" {
			al = demoLast[rng.IntN(len(demoLast))]
		}
		c.AssociatedPeople = []Associate{{Name: af + " " + al, Firstname: af, Lastname: al, Relation: rel}}
		c.Source = "demo"
		c.ID = CandidateID(first, last, a)
		out = append(out, c)
	}
	return out
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return 0
}
