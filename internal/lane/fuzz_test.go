package lane
