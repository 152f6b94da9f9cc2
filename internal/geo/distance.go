package geo

import "math"

// EarthRadiusMiles is the mean radius of the Earth (IUGG). Using one spherical radius everywhere keeps
// Miles, ApproxMiles and the index in agreement; the sphere is within 0.5% of the ellipsoid, far below
// the precision of a ZIP centroid or a geocoded address.
const EarthRadiusMiles = 3958.8

const degToRad = math.Pi / 180

// Miles returns the great-circle (haversine) distance in miles between two points given in degrees.
// Haversine rather than the spherical law of cosines because it stays accurate for the short
// distances that matter here: two houses on the same street.
func Miles(lat1, lon1, lat2, lon2 float64) float64 {
	phi1 := lat1 * degToRad
	phi2 := lat2 * degToRad
	sinDPhi := math.Sin((phi2 - phi1) / 2)
	sinDLambda := math.Sin((lon2 - lon1) * degToRad / 2)
	a := sinDPhi*sinDPhi + math.Cos(phi1)*math.Cos(phi2)*sinDLambda*sinDLambda
	// Rounding can push a a hair past 1 for antipodal points, where Sqrt would still be fine but
	// Asin would return NaN.
	if a > 1 {
		a = 1
	}
	return 2 * EarthRadiusMiles * math.Asin(math.Sqrt(a))
}

// ApproxMiles returns the equirectangular approximation of the distance in miles: the points are
// projected onto a plane scaled by the cosine of their mean latitude. It needs one cosine and one
// square root instead of Miles's five trigonometric calls, for inner loops that rank many nearby points.
// Below 50 miles its error is under 0.5% anywhere in the US, Alaska included (see the tests); it grows
// with distance and latitude, so use Miles for anything reported to a person.
func ApproxMiles(lat1, lon1, lat2, lon2 float64) float64 {
	dLon := lon2 - lon1
	// Take the short way round the antimeridian, which the western Aleutians and the Pacific
	// territories lie across; the branch costs next to nothing.
	if dLon > 180 {
		dLon -= 360
	} else if dLon < -180 {
		dLon += 360
	}
	x := dLon * math.Cos((lat1+lat2)/2*degToRad)
	y := lat2 - lat1
	return EarthRadiusMiles * degToRad * math.Sqrt(x*x+y*y)
}
