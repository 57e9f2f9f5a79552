# Reference numbers for tests/stats/test_cox_r.py, test_gray_r.py and test_zph_r.py.
#   Rscript tests/stats/data/reference.R      (R 4.2, survival 3.5, cmprsk 2.2)
suppressMessages({library(survival); library(cmprsk)})
options(digits = 15)
here <- "tests/stats/data"
show <- function(label, fit) {
  cat("==", label, "\n")
  print(coef(fit)); print(sqrt(diag(fit$var)))
  if (!is.null(fit$naive.var)) print(sqrt(diag(fit$naive.var)))
  print(fit$loglik)
}
d <- read.csv(file.path(here, "cox_fleet.csv"))
show("A efron", coxph(Surv(stop, event) ~ age + rack, data = d))
show("B breslow", coxph(Surv(stop, event) ~ age + rack, data = d, ties = "breslow"))
show("C all", coxph(Surv(entry, stop, event) ~ age + rack + strata(site) + offset(off), data = d,
                    weights = w, cluster = unit))
show("C breslow", coxph(Surv(entry, stop, event) ~ age + rack + strata(site) + offset(off), data = d,
                    weights = w, cluster = unit, ties = "breslow"))
show("D robust", coxph(Surv(stop, event) ~ age + rack, data = d, robust = TRUE))
g <- read.csv(file.path(here, "recurrent_fleet.csv"))
show("E ag", coxph(Surv(start, stop, event) ~ age_y + rack + cluster(node), data = g))
# survfit with delayed entry: a unit entering at t is at risk after t
k <- survfit(Surv(entry, stop, event) ~ 1, data = d, conf.type = "log-log")
cat("== survfit entry\n")
idx <- c(1, 2, 3, 10, 25, 60)
print(k$time[idx]); print(k$n.risk[idx]); print(k$n.event[idx]); print(k$surv[idx]); print(k$lower[idx])
print(k$upper[idx]); print(k$cumhaz[idx]); print(k$std.chaz[idx])
cat("== zph\n")
fa <- coxph(Surv(stop, event) ~ age + rack, data = d)
for (tr in c("km", "rank", "identity")) print(cox.zph(fa, transform = tr)$table)
fb <- coxph(Surv(stop, event) ~ age + rack, data = d, ties = "breslow")
print(cox.zph(fb)$table)
fc <- coxph(Surv(entry, stop, event) ~ age + rack + strata(site) + offset(off), data = d, weights = w)
print(cox.zph(fc)$table)
fe <- coxph(Surv(start, stop, event) ~ age_y + rack + cluster(node), data = g)
print(cox.zph(fe)$table)
cat("== survreg\n")
for (dist in c("weibull", "lognormal", "loglogistic")) {
  f <- survreg(Surv(stop, event) ~ age + rack, data = d, dist = dist)
  cat(dist, "\n"); print(coef(f)); print(log(f$scale)); print(sqrt(diag(f$var))); print(f$loglik)
  f <- survreg(Surv(stop, event) ~ age + rack, data = d, dist = dist, weights = w, cluster = unit)
  print(coef(f)); print(log(f$scale)); print(sqrt(diag(f$var))); print(sqrt(diag(f$naive.var))); print(f$loglik)
  f <- survreg(Surv(stop, event) ~ age + rack, data = d, dist = dist, robust = TRUE)
  print(sqrt(diag(f$var)))
}
cat("== cuminc\n")
for (f in c("competing_40.csv", "competing_300.csv")) {
  cc <- read.csv(file.path(here, f))
  print(cuminc(cc$time, cc$cause, cc$group, cencode = 0)$Tests)
  print(cuminc(cc$time, cc$cause, cc$group, cc$strat, cencode = 0)$Tests)
  print(cuminc(cc$time, cc$cause, cc$group, rho = 1, cencode = 0)$Tests)
  two <- cc$group != "g3"
  print(cuminc(cc$time[two], cc$cause[two], cc$group[two], cencode = 0)$Tests)
}
