package interp

// Registry is every algorithm of `-a`, in the order that help and the README list them; the
// first is the default. Each algorithm declares its options next to its code (see Declaration);
// adding an algorithm touches its own file and this table only.
var Registry = []*Declaration{
	&aidwDeclaration,
	&invDistDeclaration,
	&invDistNNDeclaration,
	&nearestDeclaration,
	&averageDeclaration,
	&minimumDeclaration,
	&maximumDeclaration,
	&rangeDeclaration,
	&countDeclaration,
	&medianDeclaration,
	&averageDistanceDeclaration,
	&averageDistancePtsDeclaration,
	&linearDeclaration,
}
