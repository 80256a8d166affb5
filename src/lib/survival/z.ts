/**
 * qnorm(0.975) to 16 significant digits, not 1.96: with 1.96 the bands differ from R's by ~2e-5
 * relative, and we match R's survfit to 1e-12.
 */
export const Z_95 = 1.959963984540054;
