# guest-order.awk -v jobs=N: reads "SECONDS GUEST" lines, longest first,
# and prints the guests in the order that ends soonest when each of N
# slots takes the next guest as it frees up (vmcheck.sh's queue). Longest
# first alone can leave one slot running long after the other is done
# (1000 + 470 + 360 s beside 890 + 740 s); this tries every order of up
# to 7 guests and keeps the first that ends soonest, so a tie stays
# longest first. More guests: longest first.

function finish(order,    free, i, j, k, end) {
	for (j = 1; j <= jobs; j++)
		free[j] = 0
	for (i = 1; i <= n; i++) {
		k = 1
		for (j = 2; j <= jobs; j++)
			if (free[j] < free[k])
				k = j
		free[k] += secs[order[i]]
	}
	end = 0
	for (j = 1; j <= jobs; j++)
		if (free[j] > end)
			end = free[j]
	return end
}

# permute(depth): every order of the guests not yet placed after depth-1
function permute(depth,    i, end) {
	if (depth > n) {
		end = finish(cur)
		if (best_end < 0 || end < best_end) {
			best_end = end
			for (i = 1; i <= n; i++)
				best[i] = cur[i]
		}
		return
	}
	for (i = 1; i <= n; i++) {
		if (used[i])
			continue
		used[i] = 1
		cur[depth] = i
		permute(depth + 1)
		used[i] = 0
	}
}

NF >= 2 { n++; secs[n] = $1; name[n] = $2 }

END {
	if (jobs < 1)
		jobs = 1
	for (i = 1; i <= n; i++)
		best[i] = i
	if (n <= 7 && jobs > 1) {
		best_end = -1
		permute(1)
	}
	for (i = 1; i <= n; i++)
		print name[best[i]]
}
